import type { IncomingMessage } from 'node:http';
import net from 'node:net';
import { PEER_HEADER } from '@/lib/auth/client-address';

let installed = false;

/**
 * Stamps every incoming HTTP request with its socket's peer address. Next gives route handlers no
 * socket, and fills X-Forwarded-For only when a client did not send one, so without a proxy that
 * header is the client's own word; this one is not (an incoming copy is overwritten).
 */
export function stampPeerAddresses(): void {
  if (installed) return;
  installed = true;
  const emit = net.Server.prototype.emit;
  net.Server.prototype.emit = function stampingEmit(
    this: net.Server,
    event: string | symbol,
    ...args: unknown[]
  ): boolean {
    if (event === 'request') {
      const request = args[0] as IncomingMessage;
      request.headers[PEER_HEADER] = request.socket?.remoteAddress ?? 'unknown';
    }
    return Reflect.apply(emit, this, [event, ...args]) as boolean;
  };
}
