import { openRoute, requestCookieHeaders } from '../../shared/http/handler.js';
import { logger } from '../../shared/core/logger.js';
import { appSendingAccountsUrl, callbackLanding, completeMailboxConnection, OAuthCallbackFailure, oauthRedirectUri } from '../../shared/mailboxes/connect-mailbox.js';
import { bindingNonceOf, clearedBindingCookie } from '../../shared/mailboxes/browser-binding.js';

/**
 * The public OAuth callback (docs/decisions.md#connecting-a-mailbox): the user's browser, sent back by the
 * provider. Always a 302 to the starter's page (the web app's sending accounts, or an operator's
 * `return_url`) with `sending_account=ea_…` or `error=<code>`, never an error page; the binding cookie is
 * cleared on every answer. What went wrong is logged for operators, not shown.
 */
export const handler = openRoute(async ({ query, event }) => {
  const landing = await completeMailboxConnection(query, bindingNonceOf(requestCookieHeaders(event))).then(
    ({ account, returnUrl }) => callbackLanding(returnUrl ?? appSendingAccountsUrl(), { sending_account: account.id }),
    (e: unknown) => {
      if (e instanceof OAuthCallbackFailure) {
        logger.warn('mailbox connection refused at the callback', { code: e.code, reason: e.message });
        return callbackLanding(e.returnUrl ?? appSendingAccountsUrl(), { error: e.code });
      }
      logger.error('mailbox connection failed at the callback', { error: e as Error });
      return callbackLanding(appSendingAccountsUrl(), { error: 'server_error' });
    },
  );
  // The query holds a one-time code: no cache may keep this answer, no Referer may carry the URL on.
  return { status: 302, headers: { location: landing, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' }, cookies: [clearedBindingCookie(oauthRedirectUri())] };
});
