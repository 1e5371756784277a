// Once a finding, now a regression test: the egress decodes Content-Encoding (gzip, deflate, br) and refuses others, but not a transfer coding: an
// answer framed `Transfer-Encoding: gzip, chunked` (valid HTTP/1.1) is de-chunked by Node and passed on still
// compressed, so what flows back compares compressed bytes, finds nothing, and the caller gunzips the plaintext of a
// token it may only see masked.
import { gunzipSync, gzipSync } from 'node:zlib';
import { startLocalHttpServer, type LocalHttpServer } from '../../support/local-http-server';
import { asKey, BOOTSTRAP_KEY, createApplication, startTestApp, type TestApp } from '../../support/test-app';

describe('proxy attack: a gzip transfer coding passes what flows back undecoded', () => {
  let test: TestApp;
  let echo: LocalHttpServer;

  beforeAll(async () => {
    // An echo whose server compresses with a transfer coding, written on the socket as such a server would.
    echo = await startLocalHttpServer((req, res) => {
      const zipped = gzipSync(Buffer.from(req.body));
      const socket = res.socket!;
      socket.write(`HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ntransfer-encoding: gzip, chunked\r\nconnection: close\r\n\r\n`);
      socket.write(`${zipped.length.toString(16)}\r\n`);
      socket.write(zipped);
      socket.end('\r\n0\r\n\r\n');
    });
    test = await startTestApp({ VAULT_PROXY_ALLOWED_HOSTS: echo.host, VAULT_RATE_LIMIT_PER_SECOND: '100000' });
  });
  afterAll(async () => {
    await test?.close();
    await echo?.close();
  });

  it('the caller cannot gunzip a card it may only see masked out of the answer', async () => {
    const data = '4111111111111111';
    const owner = await createApplication(test, {
      name: 'owner',
      type: 'private',
      rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ['token:create', 'token:read'] }],
    });
    const caller = await createApplication(test, {
      name: 'use-only',
      type: 'private',
      rules: [{ priority: 1, container: '/', transform: 'mask', permissions: ['token:read', 'token:use'] }],
    });
    const id = (await asKey(test, owner.key).post('/tokens', { type: 'card_number', data })).body.id as string;
    const proxyKey = (await asKey(test, BOOTSTRAP_KEY).post('/proxies', { name: 'te', destination_url: echo.url('/') })).body.key;
    const answer = await test
      .http()
      .post('/proxy')
      .set('SVC-API-KEY', caller.key)
      .set('SVC-PROXY-KEY', proxyKey)
      .set('content-type', 'text/plain')
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      })
      .send(`card={{ ${id} }}`);
    if (answer.headers['svc-proxy-error'] === 'true') return; // refused by a fix
    const body = answer.body as Buffer;
    const readable = body[0] === 0x1f && body[1] === 0x8b ? gunzipSync(body).toString() : body.toString();
    expect(readable).not.toContain(data);
  });
});
