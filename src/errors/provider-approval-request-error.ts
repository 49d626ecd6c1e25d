/**
 * A provider asked for approval of a call of a tool it runs itself (OpenAI's MCP tool with
 * `requireApproval`): the AI SDK stops its loop for the answer, which goes back to the provider in
 * the next call. loopchart's approvals are for the tools it runs; it cannot send the provider an
 * answer, so the request is refused with this error (a `stream-warning` of the step) instead of
 * being dropped, and the provider's call stays unanswered.
 *
 * @example
 * ```ts
 * agent.events$.subscribe((event) => {
 *   if (event.type === 'stream-warning') console.warn(event.error.message); // The provider asks for approval of its own call …
 * });
 * ```
 */
export class ProviderApprovalRequestError extends Error {
  override readonly name = 'ProviderApprovalRequestError';
  readonly toolCallId: string;
  readonly approvalId: string;

  constructor({ toolCallId, approvalId, toolName }: { toolCallId: string; approvalId: string; toolName?: string }) {
    super(
      `The provider asks for approval of its own call${toolName ? ` of ${toolName}` : ''} (${toolCallId}, approval ${approvalId}), and loopchart cannot answer a provider's approval request: that call will not run. Configure the provider's tool not to ask (OpenAI's MCP tool: requireApproval: 'never'), or give loopchart the tool to run itself.`,
    );
    this.toolCallId = toolCallId;
    this.approvalId = approvalId;
  }
}
