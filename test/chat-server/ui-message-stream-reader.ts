import type { UIMessageChunk } from 'ai';

/** Reads the AI SDK's UI message stream (server-sent events of JSON chunks) a chunk at a time, keeping every chunk read. */
export class UIMessageStreamReader {
  readonly chunks: UIMessageChunk[] = [];
  private readonly lines: AsyncIterator<string>;

  constructor(response: Response) {
    if (!response.body) throw new Error('The response has no body.');
    this.lines = sseData(response.body)[Symbol.asyncIterator]();
  }

  /** Reads up to and including the first chunk of `type`; fails when the stream ends first. */
  async until<T extends UIMessageChunk['type']>(type: T): Promise<Extract<UIMessageChunk, { type: T }>> {
    for (;;) {
      const { done, value } = await this.lines.next();
      if (done) throw new Error(`The stream ended without a "${type}" chunk; read: ${this.chunks.map((chunk) => chunk.type).join(', ')}`);
      const chunk = JSON.parse(value) as UIMessageChunk;
      this.chunks.push(chunk);
      if (chunk.type === type) return chunk as Extract<UIMessageChunk, { type: T }>;
    }
  }

  /** Reads to the stream's `[DONE]`; returns every chunk read. */
  async toEnd(): Promise<UIMessageChunk[]> {
    for (;;) {
      const { done, value } = await this.lines.next();
      if (done) return this.chunks;
      this.chunks.push(JSON.parse(value) as UIMessageChunk);
    }
  }

  text(): string {
    return this.chunks.map((chunk) => (chunk.type === 'text-delta' ? chunk.delta : '')).join('');
  }
}

async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const bytes of body) {
    buffered += decoder.decode(bytes, { stream: true });
    let boundary: number;
    while ((boundary = buffered.indexOf('\n\n')) >= 0) {
      const event = buffered.slice(0, boundary);
      buffered = buffered.slice(boundary + 2);
      for (const line of event.split('\n')) {
        if (!line.startsWith('data: ')) continue;
        const data = line.slice('data: '.length);
        if (data === '[DONE]') return;
        yield data;
      }
    }
  }
}
