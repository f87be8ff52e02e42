import {
  addressOf,
  classifyInbound,
  extractMessageIds,
  type InboundClassification,
  type InboundMessage,
} from '../../../shared/outreach/inbound.js';

function msg(partial: Partial<InboundMessage>): InboundMessage {
  return {
    from: 'Jane Doe <jane@acme.io>',
    to: 'sam@vaultly.io',
    subject: 'Re: SOC 2 for Acme',
    text: 'Sounds interesting. Does Thursday at 2pm work for a call?',
    headers: {},
    in_reply_to: '<em_1@vaultly.io>',
    ...partial,
  };
}

const table: [string, InboundMessage, InboundClassification][] = [
  ['a plain human reply', msg({}), 'reply'],
  [
    'a reply quoting an out-of-office line from the original',
    msg({ text: 'Yes, happy to chat.\n\nOn Tue, 7 May 2024 at 09:41, Sam wrote:\n> I am currently out of the office next week' }),
    'reply',
  ],
  ['a reply that talks about automation', msg({ text: 'We automate a lot already, but happy to compare notes.' }), 'reply'],
  ['Auto-Submitted: no', msg({ headers: { 'Auto-Submitted': 'no' } }), 'reply'],
  [
    'a Postfix bounce from MAILER-DAEMON',
    msg({
      from: 'MAILER-DAEMON@mx1.acme.io (Mail Delivery System)',
      subject: 'Undelivered Mail Returned to Sender',
      text: 'This is the mail system at host mx1.acme.io.\n\n<jane@acme.io>: host mx.acme.io said: 550 5.1.1 User unknown',
    }),
    'bounce',
  ],
  [
    'a Gmail failure notice',
    msg({
      from: 'Mail Delivery Subsystem <mailer-daemon@googlemail.com>',
      subject: 'Delivery Status Notification (Failure)',
      text: "Address not found\n\nYour message wasn't delivered to jane@acme.io because the address couldn't be found.",
    }),
    'bounce',
  ],
  [
    'an Exim failure',
    msg({ from: 'Mail Delivery System <Mailer-Daemon@relay.example>', subject: 'Mail delivery failed: returning message to sender' }),
    'bounce',
  ],
  [
    'an Exchange NDR from postmaster',
    msg({ from: 'postmaster@acme.onmicrosoft.com', subject: 'Undeliverable: SOC 2 for Acme' }),
    'bounce',
  ],
  [
    'a DSN recognised by its content type alone',
    msg({
      from: 'bounces@relay.example',
      subject: 'Returned',
      headers: { 'CONTENT-TYPE': 'multipart/report; report-type="delivery-status"; boundary="b1"' },
    }),
    'bounce',
  ],
  // An X-Failed-Recipients header alone, on an ordinary message from an ordinary sender, is no evidence.
  ['an X-Failed-Recipients header on an ordinary message', msg({ from: 'relay@example.net', subject: 'Notice', headers: { 'X-Failed-Recipients': 'jane@acme.io' } }), 'reply'],
  [
    'an X-Failed-Recipients header on an Exim bounce',
    msg({
      from: 'Mail Delivery System <Mailer-Daemon@relay.example>',
      subject: 'Mail delivery failed: returning message to sender',
      text: 'This message was created automatically by mail delivery software.\n\nA message that you sent could not be delivered to one or more of its recipients.',
      headers: { 'X-Failed-Recipients': 'jane@acme.io' },
    }),
    'bounce',
  ],
  ['a person\'s "Undeliverable:" subject', msg({ subject: 'Undeliverable: the pallets you quoted' }), 'reply'],
  ['a person\'s "Re: Returned mail costs" subject', msg({ subject: 'Re: Returned mail costs at Acme' }), 'reply'],
  [
    'a delay-only DSN',
    msg({
      from: 'mailer-daemon@googlemail.com',
      subject: 'Delivery Status Notification (Delay)',
      text: 'Reporting-MTA: dns; googlemail.com\n\nFinal-Recipient: rfc822; jane@acme.io\nAction: delayed\nStatus: 4.4.1',
    }),
    'auto_reply',
  ],
  ['Auto-Submitted: auto-replied', msg({ headers: { 'Auto-Submitted': 'auto-replied' } }), 'auto_reply'],
  ['an upper-case AUTO-SUBMITTED header', msg({ headers: { 'AUTO-SUBMITTED': 'auto-generated' } }), 'auto_reply'],
  ['X-Autoreply', msg({ headers: { 'X-Autoreply': 'yes' } }), 'auto_reply'],
  ['x-autorespond in any case', msg({ headers: { 'x-AutoRespond': 'vacation' } }), 'auto_reply'],
  ['Precedence: bulk', msg({ headers: { Precedence: 'bulk' } }), 'auto_reply'],
  ['Precedence: auto_reply', msg({ headers: { precedence: 'auto_reply' } }), 'auto_reply'],
  ['an "Out of Office" subject', msg({ subject: 'Out of Office: Re: SOC 2 for Acme' }), 'auto_reply'],
  ['an "Automatic reply" subject', msg({ subject: 'Automatic reply: SOC 2 for Acme' }), 'auto_reply'],
  ['an "Auto:" subject', msg({ subject: 'Auto: SOC 2 for Acme' }), 'auto_reply'],
  ['an "Abwesenheitsnotiz" subject', msg({ subject: 'Abwesenheitsnotiz: SOC 2 for Acme' }), 'auto_reply'],
  ['an "OOO" subject', msg({ subject: 'OOO until 13 May' }), 'auto_reply'],
  [
    'an out-of-office body under a normal subject',
    msg({ text: 'Thank you for your email. I am currently out of the office until Monday with limited access.' }),
    'auto_reply',
  ],
];

describe('classifyInbound', () => {
  it.each(table)('classifies %s', (_label, message, expected) => {
    expect(classifyInbound(message)).toBe(expected);
  });

  it('covers all three classes with at least a dozen samples', () => {
    expect(table.length).toBeGreaterThanOrEqual(12);
    expect(new Set(table.map(([, , c]) => c))).toEqual(new Set(['reply', 'bounce', 'auto_reply']));
  });
});

describe('extractMessageIds', () => {
  it('lists ids in order without duplicates across folded lines', () => {
    expect(extractMessageIds('<a1@vaultly.io>\r\n <b2@vaultly.io> <a1@vaultly.io>\t<c3.x@mail.acme.io>')).toEqual([
      '<a1@vaultly.io>',
      '<b2@vaultly.io>',
      '<c3.x@mail.acme.io>',
    ]);
  });

  it.each([[null], [undefined], [''], ['no ids here'], ['<broken id@x>']])('returns [] for %p', (value) => {
    expect(extractMessageIds(value)).toEqual([]);
  });
});

describe('addressOf', () => {
  it('reads the address in angle brackets, or a bare one, lower-cased', () => {
    expect(addressOf('Jane Doe <Jane@Acme.io>')).toBe('jane@acme.io');
    expect(addressOf('raj@globex.com (Raj)')).toBe('raj@globex.com');
    expect(addressOf('no address here')).toBe('');
  });
});

describe('message ids in threading headers', () => {
  it('skips an id longer than a header line may be, keeping the others in order', () => {
    const long = `<${'a'.repeat(1200)}@x.test>`;
    expect(extractMessageIds(`<one@x.test> ${long} <two@x.test> <one@x.test>`)).toEqual(['<one@x.test>', '<two@x.test>']);
  });
});
