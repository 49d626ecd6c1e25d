/**
 * keyGuardedFetch: a request carrying an API key follows redirects only within
 * its origin, and never goes over plain http to another machine.
 */
import { describe, expect, it } from 'vitest';
import { credentialIn, KeyExposureError, keyGuardedFetch } from '../src/ai-sdk/key-guarded-fetch.js';
import { errorResponse, streamResponse, useOpenAIServers, type OpenAIServer, type ScriptedHttpResponse } from './support/openai-sse-server.js';

const serveOn = useOpenAIServers();

/** A server on 127.0.0.1 answering every path with the scripted responses in turn (a 500 after them); it records every request. */
async function serve(responses: ScriptedHttpResponse[] = []): Promise<OpenAIServer> {
  return serveOn(responses, { path: /.*/ });
}

const redirect = (status: number, location: string) => errorResponse(status, { headers: { location } });
const post = (headers: Record<string, string>) => ({ method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{"stream":true}' });

describe('keyGuardedFetch', () => {
  it.each([
    ['x-api-key', { 'x-api-key': 'sk-ant-secret-1' }],
    ['x-goog-api-key', { 'x-goog-api-key': 'g-secret-1' }],
    ['authorization', { authorization: 'Bearer sk-secret-1' }],
    ['api-key', { 'api-key': 'azure-secret-1' }],
  ])('refuses a redirect to another origin while the request carries %s, and sends nothing there', async (header, headers) => {
    const elsewhere = await serve();
    const server = await serve([redirect(307, `${elsewhere.url}/v1/messages`)]);

    const sent = keyGuardedFetch()(`${server.url}/v1/messages`, post(headers));

    await expect(sent).rejects.toThrow(KeyExposureError);
    await expect(sent).rejects.toThrow(`${server.url} answered 307 with a redirect to ${elsewhere.url}, another origin: the API key (the ${header} header) is not sent there`);
    expect(elsewhere.requests).toEqual([]);
  });

  it('follows a redirect within the origin itself, sending the same method, body and key again', async () => {
    const server = await serve([redirect(307, '/v2/messages'), streamResponse({ text: 'ok' })]);

    const response = await keyGuardedFetch()(`${server.url}/v1/messages`, post({ 'x-api-key': 'sk-ant-secret-1' }));

    expect(response.status).toBe(200);
    expect(server.requests.map(({ method, url, rawBody, headers }) => ({ method, url, rawBody, key: headers['x-api-key'] }))).toEqual([
      { method: 'POST', url: '/v1/messages', rawBody: '{"stream":true}', key: 'sk-ant-secret-1' },
      { method: 'POST', url: '/v2/messages', rawBody: '{"stream":true}', key: 'sk-ant-secret-1' },
    ]);
  });

  it('turns a POST into a GET without a body on a 303, as fetch does', async () => {
    const server = await serve([redirect(303, '/status'), streamResponse({ text: 'ok' })]);

    await keyGuardedFetch()(`${server.url}/v1/messages`, post({ 'x-api-key': 'sk-ant-secret-1' }));

    expect(server.requests.map(({ method, url, rawBody, headers }) => ({ method, url, rawBody, type: headers['content-type'] }))[1]).toEqual({ method: 'GET', url: '/status', rawBody: '', type: undefined });
  });

  it('stops after maxRedirects within the origin', async () => {
    const server = await serve([redirect(307, '/a'), redirect(307, '/b'), redirect(307, '/c')]);
    await expect(keyGuardedFetch({ maxRedirects: 2 })(`${server.url}/v1`, post({ 'x-api-key': 'sk-ant-secret-1' }))).rejects.toThrow('more than 2 redirects');
  });

  it('names the URL without its query when it stops, so that a key in it (?key=) is not in the error', async () => {
    const server = await serve([redirect(307, '/a?key=AIza-secret-2'), redirect(307, '/b?key=AIza-secret-2')]);
    await expect(keyGuardedFetch({ maxRedirects: 1 })(`${server.url}/v1?key=AIza-secret-2`, post({}))).rejects.toThrow(new RegExp(`^${server.url}/a\\?…: more than 1 redirects$`));
  });

  it('lets a request without a key follow a redirect anywhere, as fetch does', async () => {
    const elsewhere = await serve([streamResponse({ text: 'ok' })]);
    const server = await serve([redirect(307, `${elsewhere.url}/v1/chat/completions`)]);

    const response = await keyGuardedFetch()(`${server.url}/v1/chat/completions`, post({}));

    expect(response.status).toBe(200);
    expect(elsewhere.requests).toHaveLength(1);
  });

  it('refuses to send a key over plain http to another machine before connecting, unless allowInsecureKey', async () => {
    const calls: string[] = [];
    const recorded: typeof fetch = async (input) => {
      calls.push(input instanceof Request ? input.url : input.toString());
      return new Response('ok');
    };

    await expect(keyGuardedFetch({ fetch: recorded })('http://192.0.2.10/v1/messages', post({ 'x-api-key': 'sk-ant-secret-1' }))).rejects.toThrow(
      'refused to send the API key (the x-api-key header) over plain http to 192.0.2.10, another machine',
    );
    expect(calls).toEqual([]);

    await keyGuardedFetch({ fetch: recorded, allowInsecureKey: true })('http://192.0.2.10/v1/messages', post({ 'x-api-key': 'sk-ant-secret-1' }));
    await keyGuardedFetch({ fetch: recorded })('http://192.0.2.10/v1/messages', post({}));
    await keyGuardedFetch({ fetch: recorded })('https://192.0.2.10/v1/messages', post({ 'x-api-key': 'sk-ant-secret-1' }));
    expect(calls).toHaveLength(3);
  });

  it('reads a Request object, its headers and body, the same way', async () => {
    const elsewhere = await serve();
    const server = await serve([redirect(307, '/again'), redirect(308, `${elsewhere.url}/x`)]);

    const request = new Request(`${server.url}/v1`, { method: 'POST', headers: { 'x-goog-api-key': 'g-secret-1' }, body: 'the body' });

    await expect(keyGuardedFetch()(request)).rejects.toThrow('another origin');
    expect(server.requests.map((recorded) => recorded.rawBody)).toEqual(['the body', 'the body']);
    expect(elsewhere.requests).toEqual([]);
  });
});

describe('credentialIn', () => {
  it('names the header, parameter or URL part that carries a credential', () => {
    expect(credentialIn('https://a.test/v1', { 'X-Goog-Api-Key': 'k' })).toBe('the API key (the x-goog-api-key header)');
    expect(credentialIn('https://a.test/v1?alt=sse&key=k', {})).toBe('the API key (the key= parameter)');
    expect(credentialIn('https://user:pass@a.test/v1', {})).toBe('the credentials in the URL');
    expect(credentialIn('https://a.test/v1', new Headers({ 'x-auth-token': 't' }))).toBe('the API key (the x-auth-token header)');
  });

  it('sees none in the headers every request carries, or in an empty header', () => {
    expect(credentialIn('https://a.test/v1', { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'idempotency-key': 'i', authorization: '' })).toBeUndefined();
  });
});
