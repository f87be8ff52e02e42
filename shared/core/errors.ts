/**
 * Domain errors. Each carries the docs/decisions.md#errors code and HTTP status; the one error middleware
 * (shared/http) maps them to the envelope `{"error": {"code", "message", "details"?}}`.
 * Anything that is not an AppError becomes a generic 500 with nothing internal in it.
 */
export interface ErrorDetail {
  path: string;
  message: string;
}

export class AppError extends Error {
  /**
   * Whether the client may read this error's code and message. As in middy, true below 500: a server-side
   * failure's message was written for operators, so it becomes a generic 500 unless the contract itself
   * defines the answer.
   */
  readonly expose: boolean;
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly details?: ErrorDetail[],
    expose = statusCode < 500,
  ) {
    super(message);
    this.name = new.target.name;
    this.expose = expose;
  }
}

export class ValidationError extends AppError {
  constructor(message: string, details?: ErrorDetail[]) {
    super(400, 'invalid_request', message, details);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'Missing, invalid or revoked API key.') {
    super(401, 'unauthorized', message);
  }
}

export class InsufficientCreditsError extends AppError {
  constructor(message = 'The balance cannot cover this charge.') {
    super(402, 'insufficient_credits', message);
  }
}

/**
 * A reservation that kept losing to concurrent writers on the same balance (docs/decisions.md#contention):
 * retryable, never a 402.
 */
export class ContentionError extends AppError {
  readonly retryAfterSeconds = 1;
  constructor(message = 'The balance is being changed by concurrent requests; retry shortly.') {
    super(503, 'contention', message, undefined, true);
  }
}

export class PermissionDeniedError extends AppError {
  constructor(message = 'This account is not eligible for the public API.') {
    super(403, 'permission_denied', message);
  }
}

export class NotFoundError extends AppError {
  constructor(message = 'Not found.') {
    super(404, 'not_found', message);
  }
}

export class ConflictError extends AppError {
  constructor(message: string) {
    super(409, 'conflict', message);
  }
}

export class UpstreamError extends AppError {
  constructor(message = 'Upstream failure; no charge was made.') {
    // docs/decisions.md#errors defines this answer (502 `upstream_error`, no charge), so it is shown as it is.
    super(502, 'upstream_error', message, undefined, true);
  }
}

/** A gateway-shaped answer (`{"message": "…"}`), as API Gateway itself would give. */
export class GatewayError extends Error {
  constructor(
    readonly statusCode: number,
    readonly gatewayMessage: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(gatewayMessage);
    this.name = 'GatewayError';
  }
}
