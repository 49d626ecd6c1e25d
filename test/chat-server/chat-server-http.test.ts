import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptedModel, type ScriptedModel } from 'loopchart/test';
import { startChatServer, type ChatServer } from '../../examples/chat-server/server.js';
import { UIMessageStreamReader } from './ui-message-stream-reader.js';

/** Each session's model: save a note (which waits for approval), report it, then answer a second prompt. */
const noteScript = () =>
  scriptedModel([
    { text: 'Saving your note.', toolCalls: [{ id: 'save-1', name: 'write_note', input: { title: 'milk', text: 'Buy milk' } }] },
    { text: 'Done: the note is saved.' },
    { text: 'You have one note.' },
  ]);

const sessionsDir = mkdtempSync(path.join(tmpdir(), 'loopchart-chat-http-'));
const models = new Map<string, ScriptedModel>();
let server: ChatServer;

beforeAll(async () => {
  server = await startChatServer({
    port: 0,
    sessionsDir,
    createModel: (sessionId) => {
      const model = noteScript();
      models.set(sessionId, model);
      return model;
    },
  });
});

afterAll(async () => {
  await server?.close();
  rmSync(sessionsDir, { recursive: true, force: true });
});

const userMessage = (text: string) => ({ id: `user-${text}`, role: 'user', parts: [{ type: 'text', text }] });

function post(pathname: string, body: unknown, to: ChatServer = server): Promise<Response> {
  return fetch(`${to.url}${pathname}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

function chat(sessionId: string, text: string): Promise<Response> {
  return post('/api/chat', { sessionId, messages: [userMessage(text)] });
}

describe('the chat server over HTTP', () => {
  it('serves the chat page', async () => {
    const response = await fetch(`${server.url}/`);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await response.text()).toContain('<title>loopchart chat</title>');
  });

  it('streams a run, waits for approval, and finishes once the call is approved', async () => {
    const response = await chat('approved', 'Note: buy milk');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const stream = new UIMessageStreamReader(response);

    const request = await stream.until('tool-approval-request');
    expect(request).toMatchObject({ toolCallId: 'save-1', approvalId: 'approval-save-1' });
    expect(stream.chunks).toContainEqual(expect.objectContaining({ type: 'tool-input-available', toolName: 'write_note', input: { title: 'milk', text: 'Buy milk' } }));
    expect(stream.text()).toBe('Saving your note.');

    const approval = await post('/api/sessions/approved/approve', { toolCallId: 'save-1' });
    expect(approval.status).toBe(200);
    expect(await approval.json()).toEqual({ sessionId: 'approved', toolCallId: 'save-1', answer: 'approved', pendingApprovals: [] });

    const chunks = await stream.toEnd();
    expect(chunks).toContainEqual({ type: 'tool-output-available', toolCallId: 'save-1', output: { saved: 'milk', noteCount: 1 } });
    expect(chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'stop', messageMetadata: { outcome: 'completed' } });
    expect(stream.text()).toBe('Saving your note.Done: the note is saved.');
  });

  it('a second request on the same session continues its history, which the file store keeps', async () => {
    const stream = new UIMessageStreamReader(await chat('approved', 'How many notes?'));
    await stream.toEnd();
    expect(stream.text()).toBe('You have one note.');
    const prompt = JSON.stringify(models.get('approved')!.calls[2]!.prompt);
    expect(prompt).toContain('Note: buy milk');
    expect(prompt).toContain('How many notes?');

    const session = await (await fetch(`${server.url}/api/sessions/approved`)).json();
    expect(session).toMatchObject({ sessionId: 'approved', isRunning: false, pendingApprovals: [] });
    expect(session.messages.map((message: { role: string }) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user', 'assistant']);
    expect(readdirSync(sessionsDir)).toContain('approved.jsonl');
  });

  it('a session outlives the server: a new server on the same directory continues it', async () => {
    const restarted = await startChatServer({ sessionsDir, createModel: () => scriptedModel([{ text: 'Still here.' }]) });
    try {
      const response = await post('/api/chat', { sessionId: 'approved', messages: [userMessage('Still there?')] }, restarted);
      await new UIMessageStreamReader(response).toEnd();
      const session = await (await fetch(`${restarted.url}/api/sessions/approved`)).json();
      expect(session.messages).toHaveLength(8);
    } finally {
      await restarted.close();
    }
  });

  it('a denied call gives the model the reason, and the run goes on', async () => {
    const stream = new UIMessageStreamReader(await chat('denied', 'Note: buy milk'));
    await stream.until('tool-approval-request');
    const denial = await post('/api/sessions/denied/deny', { toolCallId: 'save-1', reason: 'not now' });
    expect(await denial.json()).toMatchObject({ answer: 'denied' });
    const chunks = await stream.toEnd();
    expect(chunks).toContainEqual({ type: 'tool-output-denied', toolCallId: 'save-1' });
    const prompt = JSON.stringify(models.get('denied')!.calls[1]!.prompt);
    expect(prompt).toContain('The user denied this tool call: not now');
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', messageMetadata: { outcome: 'completed' } });
  });

  it('refuses a new prompt while the session waits for approval, and says which calls wait', async () => {
    const stream = new UIMessageStreamReader(await chat('busy', 'Note: buy milk'));
    await stream.until('tool-approval-request');
    const refused = await chat('busy', 'Anything else?');
    expect(refused.status).toBe(409);
    expect(await refused.json()).toEqual({ error: expect.stringContaining('answer its pending approvals (save-1)'), pendingApprovals: ['save-1'] });
    await post('/api/sessions/busy/approve', { toolCallId: 'save-1' });
    await stream.toEnd();
  });

  it('answers unknown sessions and tool calls with a JSON 404 that says what waits', async () => {
    const unknownSession = await post('/api/sessions/nobody/approve', { toolCallId: 'save-1' });
    expect(unknownSession.status).toBe(404);
    expect(await unknownSession.json()).toEqual({ error: 'Unknown session "nobody": no chat on this server has used it.' });

    const answered = await post('/api/sessions/approved/deny', { toolCallId: 'save-1' });
    expect(answered.status).toBe(404);
    expect(await answered.json()).toEqual({ error: expect.stringMatching(/"save-1" is not waiting for approval .*no tool call is waiting/), pendingApprovals: [] });

    const sessionInfo = await fetch(`${server.url}/api/sessions/nobody`);
    expect(sessionInfo.status).toBe(404);
  });

  it('answers malformed requests with a JSON 400, and wrong routes with 404 or 405', async () => {
    const cases: Array<[Promise<Response>, number, RegExp]> = [
      [post('/api/sessions/approved/approve', {}), 400, /toolCallId/],
      [post('/api/sessions/approved/deny', { toolCallId: 'x', reason: 42 }), 400, /reason must be a string/],
      [post('/api/chat', { sessionId: '../etc', messages: [userMessage('hi')] }), 400, /sessionId must be/],
      [post('/api/chat', { sessionId: 'fresh', messages: [] }), 400, /messages must be a non-empty array/],
      [post('/api/chat', { sessionId: 'fresh', messages: [{ id: 'a', role: 'assistant', parts: [{ type: 'text', text: 'hi' }] }] }), 400, /last message must be a user message/],
      [fetch(`${server.url}/api/chat`, { method: 'POST', body: 'not json' }), 400, /not valid JSON/],
      [fetch(`${server.url}/api/chat`), 405, /Use POST/],
      [fetch(`${server.url}/nowhere`), 404, /Nothing at GET \/nowhere/],
    ];
    for (const [request, status, message] of cases) {
      const response = await request;
      expect(response.status).toBe(status);
      expect((await response.json()).error).toMatch(message);
    }
  });

  /** A request with the headers a browser would send, which fetch does not let a caller set (Host). */
  function rawRequest(method: string, pathname: string, headers: Record<string, string>, body = ''): Promise<{ status: number; json: { error?: string } }> {
    return new Promise((resolve, reject) => {
      const request = httpRequest(`${server.url}${pathname}`, { method, headers }, (response) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode!, json: JSON.parse(text) as { error?: string } }));
      });
      request.on('error', reject);
      request.end(body);
    });
  }

  it('refuses a POST from another website (its Origin) before anything runs: no run on the user\'s model, no approval', async () => {
    const body = JSON.stringify({ sessionId: 'cross-site', messages: [userMessage('Note: spend tokens')] });
    const refused = await rawRequest('POST', '/api/chat', { origin: 'https://evil.example', 'content-type': 'text/plain' }, body);
    expect(refused).toEqual({ status: 403, json: { error: expect.stringMatching(/https:\/\/evil\.example.*not this server's page/) } });
    expect(models.has('cross-site')).toBe(false);
    const approve = await rawRequest('POST', '/api/sessions/approved/approve', { origin: 'https://evil.example' }, JSON.stringify({ toolCallId: 'save-1' }));
    expect(approve.status).toBe(403);
    // The page's own origin is served as before.
    const own = await rawRequest('POST', '/api/chat', { origin: server.url, 'content-type': 'application/json' }, JSON.stringify({ sessionId: 'fresh', messages: [] }));
    expect(own.status).toBe(400);
  });

  it('refuses, on a loopback address, a request that names another host (DNS rebinding), so another website cannot read a session', async () => {
    const rebound = await rawRequest('GET', '/api/sessions/approved', { host: `evil.example:${new URL(server.url).port}` });
    expect(rebound).toEqual({ status: 403, json: { error: expect.stringMatching(/Host "evil\.example:\d+"/) } });
    expect((await rawRequest('GET', '/api/sessions/approved', { host: `localhost:${new URL(server.url).port}` })).status).toBe(200);
  });
});
