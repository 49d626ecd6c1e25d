import { AbstractChat, type ChatInit, type ChatState, type ChatStatus, type UIMessage } from 'ai';

/**
 * The chat's state, kept the way `@ai-sdk/react` keeps it for `useChat`:
 * every change replaces the array (so a view can compare by identity) and
 * tells the listeners.
 */
class ObservedChatState<MESSAGE extends UIMessage> implements ChatState<MESSAGE> {
  private current: MESSAGE[];
  private currentStatus: ChatStatus = 'ready';
  private currentError: Error | undefined;

  constructor(
    messages: MESSAGE[],
    private readonly changed: () => void,
  ) {
    this.current = messages;
  }

  get messages(): MESSAGE[] {
    return this.current;
  }

  set messages(messages: MESSAGE[]) {
    this.current = [...messages];
    this.changed();
  }

  get status(): ChatStatus {
    return this.currentStatus;
  }

  set status(status: ChatStatus) {
    this.currentStatus = status;
    this.changed();
  }

  get error(): Error | undefined {
    return this.currentError;
  }

  set error(error: Error | undefined) {
    this.currentError = error;
    this.changed();
  }

  pushMessage = (message: MESSAGE): void => {
    this.messages = [...this.current, message];
  };

  popMessage = (): void => {
    this.messages = this.current.slice(0, -1);
  };

  replaceMessage = (index: number, message: MESSAGE): void => {
    this.messages = [...this.current.slice(0, index), message, ...this.current.slice(index + 1)];
  };

  // The chat mutates the streaming message in place; a view must get a copy.
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

/**
 * The AI SDK's chat without a framework: `AbstractChat` from `ai` with a state
 * that reports its changes — what `@ai-sdk/react`'s `Chat` is, and `useChat`
 * returns its methods (`sendMessage`, `addToolApprovalResponse`, …) unchanged.
 *
 * @example
 * ```ts
 * const chat = new BrowserChat({ transport: new DefaultChatTransport({ api: '/api/chat' }) });
 * chat.subscribe(() => render(chat.messages, chat.status));
 * await chat.sendMessage({ text: 'Pay 120 to Ada' });
 * ```
 */
export class BrowserChat<MESSAGE extends UIMessage = UIMessage> extends AbstractChat<MESSAGE> {
  private readonly listeners = new Set<() => void>();

  constructor({ messages = [], ...init }: ChatInit<MESSAGE> = {}) {
    let notify = () => {};
    super({ ...init, state: new ObservedChatState(messages, () => notify()) });
    notify = () => {
      for (const listener of this.listeners) listener();
    };
  }

  /** Calls `listener` after every change of the messages, the status or the error; returns the unsubscribe. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
