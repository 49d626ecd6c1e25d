/** An MCP server sent a message over its `maxMessageBytes`: the connection was closed. */
export class McpMessageTooLargeError extends Error {
  override readonly name = 'McpMessageTooLargeError';
  constructor(readonly maxMessageBytes: number) {
    super(`the server sent a message over ${describeBytes(maxMessageBytes)} (maxMessageBytes): its connection was closed`);
  }
}

function describeBytes(bytes: number): string {
  if (bytes % 2 ** 20 === 0) return `${bytes / 2 ** 20} MiB`;
  return bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`;
}
