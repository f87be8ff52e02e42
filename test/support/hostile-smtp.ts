import { createServer, type Server, type Socket } from 'node:net';

/**
 * An SMTP server on 127.0.0.1 that takes a whole message and then, instead of accepting it, either resets
 * the connection (`reset`: the client cannot know whether the message was taken) or answers with a refusal
 * (`reject`: 554, the message was definitely not taken). Counts the messages whose data it received.
 */
export class HostileSmtp {
  private server: Server | undefined;
  private sockets = new Set<Socket>();
  received = 0;

  constructor(private readonly mode: 'reset' | 'reject') {}

  get port(): number {
    const address = this.server?.address();
    if (!address || typeof address === 'string') throw new Error('not listening');
    return address.port;
  }

  async start(): Promise<this> {
    this.server = createServer((socket) => this.session(socket));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private session(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffer = '';
    let inData = false;
    const reply = (line: string) => socket.write(`${line}\r\n`);
    reply('220 hostile.test ESMTP');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('latin1');
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          buffer = buffer.slice(end + 5);
          inData = false;
          this.received++;
          // The whole message arrived; the client now waits for the final reply.
          if (this.mode === 'reset') return void socket.resetAndDestroy();
          reply('554 5.7.1 Message refused');
          continue;
        }
        const eol = buffer.indexOf('\r\n');
        if (eol < 0) return;
        const line = buffer.slice(0, eol);
        buffer = buffer.slice(eol + 2);
        const verb = line.split(' ')[0]!.toUpperCase();
        if (verb === 'EHLO') reply('250-hostile.test\r\n250-AUTH PLAIN\r\n250 8BITMIME');
        else if (verb === 'AUTH') reply('235 2.7.0 Authentication successful');
        else if (verb === 'DATA') {
          inData = true;
          reply('354 End data with <CR><LF>.<CR><LF>');
        } else if (verb === 'QUIT') {
          reply('221 Bye');
          socket.end();
        } else reply('250 OK');
      }
    });
  }
}
