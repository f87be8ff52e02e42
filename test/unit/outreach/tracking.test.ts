import { chosenRecipient, unsubscribeChoices } from '../../../shared/outreach/tracking.js';

describe('unsubscribe choices', () => {
  test('a link only the lead got offers the lead alone', () => {
    expect(unsubscribeChoices('Jane@Acme.io', undefined)).toEqual(['jane@acme.io']);
    expect(unsubscribeChoices('jane@acme.io', [])).toEqual(['jane@acme.io']);
  });

  test('a link shared with the CC recipients offers the lead first, then each CC once, in lower case', () => {
    expect(unsubscribeChoices('jane@acme.io', ['Boss@acme.io', 'boss@acme.io', 'JANE@acme.io', 'cfo@acme.io'])).toEqual(['jane@acme.io', 'boss@acme.io', 'cfo@acme.io']);
  });
});

describe('whom a POST unsubscribes', () => {
  test('a link only the lead got: the lead, whatever the body names (the button, or RFC 8058 one-click)', () => {
    expect(chosenRecipient(['jane@acme.io'], null)).toBe('jane@acme.io');
    expect(chosenRecipient(['jane@acme.io'], 'someone@else.io')).toBe('jane@acme.io');
  });

  test('a shared link: only the address chosen among its recipients; a CC never stands for the lead', () => {
    const choices = ['jane@acme.io', 'boss@acme.io'];
    expect(chosenRecipient(choices, ' BOSS@acme.io ')).toBe('boss@acme.io');
    expect(chosenRecipient(choices, 'jane@acme.io')).toBe('jane@acme.io');
  });

  test('a shared link without a choice, or with an address it did not go to, unsubscribes nobody', () => {
    const choices = ['jane@acme.io', 'boss@acme.io'];
    for (const chosen of [null, undefined, '', 'List-Unsubscribe=One-Click', 'stranger@acme.io']) expect(chosenRecipient(choices, chosen)).toBeNull();
  });
});
