import * as z from '../../shared/core/zod.js';
import { userRoute } from '../../shared/http/handler.js';
import { updateAccount } from '../../shared/accounts/accounts.repository.js';

/** A customer turns auto-recharge on or off; every other account setting is the operator's (console PATCH). */
const AppAccountPatchSchema = z.strictObject({ auto_recharge: z.boolean() });

const pilotLimit = Number(process.env.PILOT_ACCOUNT_LIMIT ?? 3);

export const handler = userRoute({ body: AppAccountPatchSchema }, async ({ accountId, body }) => {
  const account = await updateAccount(accountId, body, { pilotLimit });
  return { status: 200, body: { id: account.id, name: account.name, balance: account.balance, auto_recharge: account.auto_recharge } };
});
