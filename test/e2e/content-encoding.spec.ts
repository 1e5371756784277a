// Content-Encoding of request bodies: gzip, deflate and br are undone; bytes that do not decode as labelled are a 400
// whose `errors.body` says so (every 400 has `errors`), another encoding a 415.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { BOOTSTRAP_KEY, startTestApp, TestApp } from '../support/test-app';

const body = (name: string) => Buffer.from(JSON.stringify({ name, type: 'public', permissions: ['token:create'] }));
const ENCODERS: Record<string, (bytes: Buffer) => Buffer> = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync };

describe('request body Content-Encoding', () => {
  let test: TestApp;
  let base: string;
  // fetch, not supertest: superagent serialises a Buffer sent as application/json to JSON instead of sending its bytes.
  const post = async (encoding: string, bytes: Buffer) => {
    const response = await fetch(`${base}/applications`, {
      method: 'POST',
      headers: { 'SVC-API-KEY': BOOTSTRAP_KEY, 'Content-Type': 'application/json', 'Content-Encoding': encoding },
      body: bytes,
    });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };

  beforeAll(async () => {
    test = await startTestApp();
    const server = test.app.getHttpServer() as Server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => test.close());

  it.each(Object.keys(ENCODERS))('decodes a %s body', async (encoding) => {
    const response = await post(encoding, ENCODERS[encoding](body(`encoded ${encoding}`)));
    expect(response.status).toBe(201);
    expect(response.body.name).toBe(`encoded ${encoding}`);
  });

  it.each([
    ['br', () => body('plain, labelled br')],
    ['deflate', () => body('plain, labelled deflate')],
    ['gzip', () => body('plain, labelled gzip')],
    ['gzip', () => gzipSync(body('corrupt gzip')).subarray(0, 20)],
    ['gzip', () => Buffer.concat([gzipSync(body('x')).subarray(0, 12), Buffer.alloc(40, 0xff)])],
  ])('answers %s bytes that do not decode with a 400 whose errors.body says so', async (encoding, bytes) => {
    const response = await post(encoding, bytes());
    expect(response.status).toBe(400);
    expect(response.body.detail).toBe('The request body cannot be read.');
    expect(response.body.errors).toEqual({ body: [expect.stringContaining(`body could not be decoded: it is not valid ${encoding} data`)] });
  });

  it('answers an encoding it does not undo with a 415', async () => {
    const response = await post('compress', body('compress'));
    expect(response.status).toBe(415);
  });
});
