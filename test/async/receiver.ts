import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  body: string;
  signature: string | undefined;
}

export interface Receiver {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/**
 * A webhook receiver on 127.0.0.1 that records every POST and answers as `answer` says: a status,
 * a redirect, or `hang` (never answers).
 */
export async function startReceiver(answer: (req: http.IncomingMessage) => number | 'hang' = () => 200): Promise<Receiver> {
  const received: Received[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ path: req.url ?? '', body, signature: req.headers['docex-signature'] as string | undefined });
      const status = answer(req);
      if (status === 'hang') return;
      if (status >= 300 && status < 400) res.setHeader('Location', '/elsewhere');
      res.statusCode = status;
      res.end();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
