/**
 * `POST /api/console/v1/dev/inbound/`: hands a received message to the outreach inbox the way a mailbox
 * provider would. The outreach capability installs the handler at start-up.
 */
export type InboundHandler = (body: unknown) => Promise<{ status: number; body: unknown }>;

let installed: InboundHandler | null = null;

export function installInboundHandler(h: InboundHandler): void {
  installed = h;
}

export async function localInbound(body: unknown): Promise<{ status: number; body: unknown }> {
  if (!installed) return { status: 501, body: { error: { code: 'not_implemented', message: 'Inbound mail is not wired yet.' } } };
  return installed(body);
}
