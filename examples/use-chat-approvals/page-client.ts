// The page's script, bundled for the browser by client-bundle.ts. It uses only what `useChat` is made
// of: the chat (`BrowserChat`, i.e. `AbstractChat`), `DefaultChatTransport`, `addToolApprovalResponse`
// and `sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses`.
import {
  DefaultChatTransport,
  getToolName,
  isToolUIPart,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type DynamicToolUIPart,
  type ToolUIPart,
  type UIMessage,
} from 'ai';
import { BrowserChat } from './browser-chat.js';

const chat = new BrowserChat({
  transport: new DefaultChatTransport({ api: '/api/chat' }),
  sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
});

const conversation = element('conversation');
const form = element('composer') as HTMLFormElement;
const prompt = element('prompt') as HTMLInputElement;
const status = element('status');
const errorLine = element('error');

form.addEventListener('submit', (event) => {
  event.preventDefault();
  const text = prompt.value.trim();
  if (text === '' || isBusy()) return;
  prompt.value = '';
  void chat.sendMessage({ text });
});

chat.subscribe(render);
render();

/** A request is under way, or a call waits for an answer: the next prompt waits too. */
function isBusy(): boolean {
  return chat.status === 'submitted' || chat.status === 'streaming' || waitingForApproval();
}

function waitingForApproval(): boolean {
  return chat.messages.some((message) => message.parts.some((part) => isToolUIPart(part) && part.state === 'approval-requested'));
}

function render(): void {
  conversation.replaceChildren(...chat.messages.map(renderMessage));
  const state = waitingForApproval() ? 'waiting-for-approval' : chat.status;
  status.dataset.state = state;
  status.textContent = state.replaceAll('-', ' ');
  errorLine.textContent = chat.error ? chat.error.message : '';
  form.querySelector('button')!.disabled = isBusy();
}

function renderMessage(message: UIMessage): HTMLElement {
  const view = tag('section', `message ${message.role}`);
  view.dataset.messageId = message.id;
  for (const part of message.parts) {
    if (part.type === 'text') view.append(tag('p', 'text', part.text));
    else if (isToolUIPart(part)) view.append(renderToolCall(part));
  }
  return view;
}

/** A tool call with the state the AI SDK gives it: its input, then the approval buttons, the result, the denial or the error. */
function renderToolCall(part: ToolUIPart | DynamicToolUIPart): HTMLElement {
  const card = tag('div', 'tool');
  card.dataset.toolName = getToolName(part);
  card.dataset.state = part.state;
  card.append(tag('h3', 'tool-name', getToolName(part)));
  if (part.input !== undefined) card.append(tag('pre', 'input', JSON.stringify(part.input, null, 2)));
  if (part.state === 'approval-requested' && !part.approval.isAutomatic) {
    const { id } = part.approval;
    const approve = tag('button', 'approve', 'Approve');
    const deny = tag('button', 'deny', 'Deny');
    approve.addEventListener('click', () => void chat.addToolApprovalResponse({ id, approved: true }));
    deny.addEventListener('click', () => void chat.addToolApprovalResponse({ id, approved: false, reason: 'The user clicked Deny.' }));
    card.append(tag('p', 'question', 'Send this payment?'), approve, deny);
  }
  if (part.state === 'approval-responded') card.append(tag('p', 'answer', part.approval.approved ? 'Approved, sending…' : 'Denied.'));
  if (part.state === 'output-available') card.append(tag('pre', 'output', JSON.stringify(part.output, null, 2)));
  if (part.state === 'output-denied') card.append(tag('p', 'denied', `Denied${part.approval.reason ? `: ${part.approval.reason}` : '.'}`));
  if (part.state === 'output-error') card.append(tag('p', 'tool-error', part.errorText));
  return card;
}

function tag(name: string, className: string, text?: string): HTMLElement {
  const node = document.createElement(name);
  node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function element(id: string): HTMLElement {
  const found = document.getElementById(id);
  if (!found) throw new Error(`The page has no #${id}.`);
  return found;
}
