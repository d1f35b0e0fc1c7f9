import { once } from 'node:events';
import { createServer } from 'node:net';

/** A TCP port on 127.0.0.1 that was free a moment ago (the OS picks it; a race with another process is unlikely). */
export async function freePort(): Promise<number> {
  const s = createServer();
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  const port = (s.address() as { port: number }).port;
  s.close();
  return port;
}
