import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { ValidationError } from '../../../shared/core/errors.js';
import { isLoopbackAddress, isPublicAddress, validateWebhookUrl, type Resolver } from '../../../shared/adapters/web-target.js';

/** A fake DNS: fixed answers per name, unknown names fail like NXDOMAIN. Records every question. */
function fakeResolver(answers: Record<string, string[]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (hostname: string): Promise<string[]> => {
    calls.push(hostname);
    const found = answers[hostname];
    if (!found) throw Object.assign(new Error(`queryA ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return found;
  };
  return Object.assign(resolve, { calls });
}

async function refusal(raw: unknown, opts: Parameters<typeof validateWebhookUrl>[1]): Promise<ValidationError> {
  const outcome = await validateWebhookUrl(raw, opts).then(
    (target) => ({ target }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error(`expected a refusal, got ${JSON.stringify(outcome.target)}`);
  expect(outcome.error).toBeInstanceOf(ValidationError);
  const err = outcome.error as ValidationError;
  expect(err.statusCode).toBe(400);
  expect(err.code).toBe('invalid_request');
  expect(err.details).toEqual([{ path: 'webhook_url', message: err.message }]);
  return err;
}

const NOT_PUBLIC: Array<[string, string]> = [
  ['127.0.0.1', 'IPv4 loopback'],
  ['127.255.255.254', 'IPv4 loopback, end of 127/8'],
  ['10.0.0.1', 'private 10/8'],
  ['10.255.255.255', 'private 10/8, end'],
  ['172.16.0.1', 'private 172.16/12'],
  ['172.31.255.255', 'private 172.16/12, end'],
  ['192.168.1.1', 'private 192.168/16'],
  ['169.254.169.254', 'link-local cloud metadata endpoint'],
  ['169.254.0.1', 'link-local'],
  ['100.64.0.1', 'CGNAT 100.64/10'],
  ['100.127.255.254', 'CGNAT 100.64/10, end'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast (SSDP)'],
  ['255.255.255.255', 'broadcast'],
  ['240.0.0.1', 'reserved 240/4'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', '0/8'],
  ['198.18.0.1', 'benchmarking 198.18/15'],
  ['198.19.255.254', 'benchmarking 198.18/15, end'],
  ['192.0.2.10', 'documentation TEST-NET-1'],
  ['198.51.100.7', 'documentation TEST-NET-2'],
  ['203.0.113.9', 'documentation TEST-NET-3'],
  ['192.0.0.8', 'IETF protocol assignments 192.0.0/24'],
  ['::1', 'IPv6 loopback'],
  ['::', 'IPv6 unspecified'],
  ['fd00::1', 'IPv6 ULA fd00::/8'],
  ['fc00::1', 'IPv6 ULA fc00::/8'],
  ['fe80::1', 'IPv6 link-local'],
  ['febf:ffff::1', 'IPv6 link-local, end of fe80::/10'],
  ['fec0::1', 'IPv6 deprecated site-local'],
  ['ff02::1', 'IPv6 multicast'],
  ['2001:db8::1', 'IPv6 documentation'],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
  ['::ffff:10.0.0.1', 'IPv4-mapped private'],
  ['::ffff:169.254.169.254', 'IPv4-mapped metadata endpoint'],
  ['::ffff:0:10.0.0.1', 'IPv4-translated private (RFC 6145)'],
  ['::10.0.0.1', 'deprecated IPv4-compatible'],
  ['64:ff9b::a00:1', 'NAT64 embedding 10.0.0.1'],
  ['64:ff9b::7f00:1', 'NAT64 embedding 127.0.0.1'],
  ['64:ff9b::a9fe:a9fe', 'NAT64 embedding 169.254.169.254'],
  ['64:ff9b:1::808:808', 'NAT64 local-use prefix'],
  ['2002:a00:1::1', '6to4 embedding 10.0.0.1'],
  ['2002:c0a8:101::1', '6to4 embedding 192.168.1.1'],
  ['2002:7f00:1::', '6to4 embedding 127.0.0.1'],
  ['2001:0:a00:1:8000:63bf:f7f7:f7f7', 'Teredo with a private server'],
  ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'Teredo with a private client (10.0.0.1 inverted)'],
  ['100::1', 'IPv6 discard prefix'],
  ['4000::1', 'IPv6 outside 2000::/3'],
  ['fe80::1%eth0', 'zone id'],
  ['0x7f.1', 'non-standard IPv4 spelling'],
  ['2130706433', 'integer IPv4 spelling'],
  ['localhost', 'a name, not an address'],
  ['', 'empty'],
];

const PUBLIC: string[] = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.216.34',
  '11.0.0.1',
  '172.32.0.1',
  '100.128.0.1',
  '198.20.0.1',
  '169.253.255.255',
  '2606:4700:4700::1111',
  '2a00:1450:4001:80b::200e',
  '::ffff:8.8.8.8',
  '64:ff9b::808:808',
  '2002:808:808::1',
  '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
];

describe('isPublicAddress', () => {
  it.each(NOT_PUBLIC)('refuses %s (%s)', (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });

  it.each(PUBLIC)('accepts %s', (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  });

  const octet = fc.integer({ min: 0, max: 255 });
  const v4 = (a: number, b: number, c: number, d: number): string => `${a}.${b}.${c}.${d}`;

  it('refuses every address in 10/8', () => {
    fc.assert(fc.property(octet, octet, octet, (b, c, d) => !isPublicAddress(v4(10, b, c, d))));
  });

  it('refuses every address in 172.16/12, 192.168/16, 127/8, 169.254/16 and 100.64/10', () => {
    const samples = fc.oneof(
      fc.tuple(fc.constant(172), fc.integer({ min: 16, max: 31 }), octet, octet),
      fc.tuple(fc.constant(192), fc.constant(168), octet, octet),
      fc.tuple(fc.constant(127), octet, octet, octet),
      fc.tuple(fc.constant(169), fc.constant(254), octet, octet),
      fc.tuple(fc.constant(100), fc.integer({ min: 64, max: 127 }), octet, octet),
    );
    fc.assert(fc.property(samples, ([a, b, c, d]) => !isPublicAddress(v4(a, b, c, d))));
  });

  it('refuses every IPv6 unique-local and link-local address', () => {
    const hextet = fc.integer({ min: 0, max: 0xffff });
    const ula = fc.tuple(fc.integer({ min: 0xfc00, max: 0xfdff }), fc.array(hextet, { minLength: 7, maxLength: 7 }));
    const linkLocal = fc.tuple(fc.integer({ min: 0xfe80, max: 0xfebf }), fc.array(hextet, { minLength: 7, maxLength: 7 }));
    fc.assert(
      fc.property(fc.oneof(ula, linkLocal), ([first, rest]) => {
        const ip = [first, ...rest].map((h) => h.toString(16)).join(':');
        return !isPublicAddress(ip);
      }),
    );
  });

  // An independent oracle: the IANA special-purpose IPv4 blocks, written out by hand.
  const NON_PUBLIC_V4 = [
    '0.0.0.0/8',
    '10.0.0.0/8',
    '100.64.0.0/10',
    '127.0.0.0/8',
    '169.254.0.0/16',
    '172.16.0.0/12',
    '192.0.0.0/24',
    '192.0.2.0/24',
    '192.31.196.0/24',
    '192.52.193.0/24',
    '192.88.99.0/24',
    '192.168.0.0/16',
    '192.175.48.0/24',
    '198.18.0.0/15',
    '198.51.100.0/24',
    '203.0.113.0/24',
    '224.0.0.0/4',
    '240.0.0.0/4',
  ].map((cidr) => ipaddr.IPv4.parseCIDR(cidr));

  it('agrees with the special-purpose block list for any IPv4 address, plain and IPv4-mapped', () => {
    fc.assert(
      fc.property(octet, octet, octet, octet, (a, b, c, d) => {
        const ip = v4(a, b, c, d);
        const parsed = ipaddr.IPv4.parse(ip);
        const expected = !NON_PUBLIC_V4.some((range) => parsed.match(range));
        return isPublicAddress(ip) === expected && isPublicAddress(`::ffff:${ip}`) === expected;
      }),
      { numRuns: 5000 },
    );
  });

  it('judges NAT64 and 6to4 forms by the IPv4 address they embed', () => {
    fc.assert(
      fc.property(octet, octet, octet, octet, (a, b, c, d) => {
        const hi = ((a << 8) | b).toString(16);
        const lo = ((c << 8) | d).toString(16);
        const embedded = isPublicAddress(v4(a, b, c, d));
        return (
          isPublicAddress(`64:ff9b::${hi}:${lo}`) === embedded && isPublicAddress(`2002:${hi}:${lo}::1`) === embedded
        );
      }),
    );
  });

  it('knows loopback from the rest', () => {
    expect(isLoopbackAddress('127.0.0.1')).toBe(true);
    expect(isLoopbackAddress('127.3.4.5')).toBe(true);
    expect(isLoopbackAddress('::1')).toBe(true);
    expect(isLoopbackAddress('10.0.0.1')).toBe(false);
    expect(isLoopbackAddress('::ffff:127.0.0.1')).toBe(false);
    expect(isLoopbackAddress('8.8.8.8')).toBe(false);
  });
});

describe('validateWebhookUrl', () => {
  const PUBLIC_V4 = '93.184.216.34';

  it('accepts an https URL whose host resolves only to public addresses and pins the first one', async () => {
    const resolver = fakeResolver({ 'hooks.example.com': [PUBLIC_V4, '2606:2800:220:1::1'] });
    const target = await validateWebhookUrl('https://hooks.example.com/in/abc?x=1', { resolver });
    expect(target).toEqual({
      url: 'https://hooks.example.com/in/abc?x=1',
      hostname: 'hooks.example.com',
      port: 443,
      protocol: 'https:',
      address: PUBLIC_V4,
      family: 4,
    });
    expect(resolver.calls).toEqual(['hooks.example.com']);
  });

  it('pins an IPv6 first answer with family 6 and keeps an explicit port', async () => {
    const resolver = fakeResolver({ 'v6.example.com': ['2606:4700:4700::1111', '1.1.1.1'] });
    const target = await validateWebhookUrl('https://v6.example.com:8443/h', { resolver });
    expect(target.address).toBe('2606:4700:4700::1111');
    expect(target.family).toBe(6);
    expect(target.port).toBe(8443);
  });

  it('pins an IPv4-mapped answer as the IPv4 address it maps', async () => {
    const resolver = fakeResolver({ 'mapped.example.com': ['::ffff:8.8.8.8'] });
    const target = await validateWebhookUrl('https://mapped.example.com/', { resolver });
    expect(target.address).toBe('8.8.8.8');
    expect(target.family).toBe(4);
  });

  it.each(NOT_PUBLIC.filter(([ip]) => ip !== '' && ip !== 'localhost'))(
    'refuses a host resolving to %s (%s)',
    async (ip) => {
      const resolver = fakeResolver({ 'victim.example.com': [ip] });
      const err = await refusal('https://victim.example.com/hook', { resolver });
      expect(err.message).toBe('webhook_url must resolve only to public addresses');
    },
  );

  it.each([
    [[PUBLIC_V4, '10.0.0.1']],
    [['10.0.0.1', PUBLIC_V4]],
    [[PUBLIC_V4, '169.254.169.254']],
    [['2606:4700:4700::1111', 'fd00::1']],
    [[PUBLIC_V4, '::ffff:127.0.0.1']],
  ])('refuses a rebinding-style answer mixing public and internal addresses: %j', async (answers) => {
    const resolver = fakeResolver({ 'rebind.example.com': answers });
    await refusal('https://rebind.example.com/', { resolver });
  });

  it('refuses any mix of public addresses with one random 10/8 address, wherever it sits', async () => {
    const octet = fc.integer({ min: 0, max: 255 });
    await fc.assert(
      fc.asyncProperty(
        fc.tuple(octet, octet, octet),
        fc.array(fc.constantFrom(PUBLIC_V4, '8.8.8.8', '2606:4700:4700::1111'), { maxLength: 4 }),
        fc.nat(),
        async ([b, c, d], publics, at) => {
          const answers: string[] = [...publics];
          answers.splice(at % (publics.length + 1), 0, `10.${b}.${c}.${d}`);
          const resolver = fakeResolver({ 'mixed.example.com': answers });
          const outcome = await validateWebhookUrl('https://mixed.example.com/', { resolver }).then(
            () => 'accepted',
            (e: unknown) => (e instanceof ValidationError ? 'refused' : 'crashed'),
          );
          return outcome === 'refused';
        },
      ),
      { numRuns: 200 },
    );
  });

  it('refuses a host that does not resolve, or resolves to nothing', async () => {
    const resolver = fakeResolver({ 'empty.example.com': [] });
    expect((await refusal('https://nxdomain.example.com/', { resolver })).message).toBe(
      'webhook_url host does not resolve',
    );
    expect((await refusal('https://empty.example.com/', { resolver })).message).toBe('webhook_url host does not resolve');
  });

  it('refuses an answer that is not an IP address', async () => {
    const resolver = fakeResolver({ 'odd.example.com': ['not-an-ip'] });
    await refusal('https://odd.example.com/', { resolver });
  });

  describe('IP-literal hosts', () => {
    it('judges a literal itself and never asks the resolver', async () => {
      const resolver = fakeResolver({});
      const v4 = await validateWebhookUrl('https://8.8.8.8/hook', { resolver });
      expect(v4).toMatchObject({ hostname: '8.8.8.8', address: '8.8.8.8', family: 4 });
      const v6 = await validateWebhookUrl('https://[2606:4700:4700::1111]:8443/hook', { resolver });
      expect(v6).toMatchObject({ hostname: '2606:4700:4700::1111', address: '2606:4700:4700::1111', family: 6, port: 8443 });
      expect(resolver.calls).toEqual([]);
    });

    it.each([
      'https://10.0.0.1/',
      'https://127.0.0.1/',
      'https://169.254.169.254/latest/meta-data/',
      'https://100.64.0.1/',
      'https://[::1]/',
      'https://[fd00::1]/',
      'https://[fe80::1]/',
      'https://[::ffff:127.0.0.1]/',
      'https://[::ffff:a9fe:a9fe]/',
      'https://[64:ff9b::a00:1]/',
      'https://0x7f.1/',
      'https://2130706433/',
      'https://0177.0.0.1/',
      'https://0.0.0.0/',
    ])('refuses %s', async (raw) => {
      const resolver = fakeResolver({});
      await refusal(raw, { resolver });
      expect(resolver.calls).toEqual([]);
    });
  });

  describe('scheme', () => {
    it.each(['http://hooks.example.com/', 'ftp://hooks.example.com/', 'ws://hooks.example.com/', 'file:///etc/passwd', 'javascript:alert(1)'])(
      'refuses %s',
      async (raw) => {
        const resolver = fakeResolver({ 'hooks.example.com': [PUBLIC_V4] });
        expect((await refusal(raw, { resolver })).message).toBe('webhook_url must use https');
      },
    );

    it('refuses http to loopback without allowLoopback', async () => {
      const resolver = fakeResolver({ localhost: ['127.0.0.1'] });
      await refusal('http://127.0.0.1:8080/hook', { resolver });
      await refusal('http://localhost:8080/hook', { resolver });
      await refusal('http://[::1]:8080/hook', { resolver });
    });

    it('refuses https to loopback without allowLoopback', async () => {
      const resolver = fakeResolver({ localhost: ['127.0.0.1'] });
      await refusal('https://127.0.0.1:8443/hook', { resolver });
      await refusal('https://localhost:8443/hook', { resolver });
    });
  });

  describe('with allowLoopback (local mode)', () => {
    it('accepts http to localhost resolving to loopback', async () => {
      const resolver = fakeResolver({ localhost: ['127.0.0.1'] });
      const target = await validateWebhookUrl('http://localhost:4000/hooks', { resolver, allowLoopback: true });
      expect(target).toEqual({
        url: 'http://localhost:4000/hooks',
        hostname: 'localhost',
        port: 4000,
        protocol: 'http:',
        address: '127.0.0.1',
        family: 4,
      });
    });

    it('accepts http to 127.0.0.0/8 and [::1] literals, default port 80', async () => {
      const resolver = fakeResolver({});
      expect(await validateWebhookUrl('http://127.0.0.1/h', { resolver, allowLoopback: true })).toMatchObject({
        protocol: 'http:',
        port: 80,
        address: '127.0.0.1',
      });
      expect(await validateWebhookUrl('http://127.9.9.9:5000/h', { resolver, allowLoopback: true })).toMatchObject({
        address: '127.9.9.9',
      });
      expect(await validateWebhookUrl('http://[::1]:5000/h', { resolver, allowLoopback: true })).toMatchObject({
        hostname: '::1',
        address: '::1',
        family: 6,
      });
    });

    it('still refuses http to a non-loopback host', async () => {
      const resolver = fakeResolver({ 'hooks.example.com': [PUBLIC_V4], 'sneaky.example.com': ['127.0.0.1'] });
      await refusal('http://hooks.example.com/', { resolver, allowLoopback: true });
      await refusal('http://sneaky.example.com/', { resolver, allowLoopback: true });
      await refusal('http://10.0.0.1/', { resolver, allowLoopback: true });
    });

    it('refuses http to localhost when it resolves to anything but loopback', async () => {
      const resolver = fakeResolver({ localhost: ['127.0.0.1', '10.0.0.5'] });
      await refusal('http://localhost:4000/', { resolver, allowLoopback: true });
    });

    it('accepts https to loopback but still refuses private and link-local', async () => {
      const resolver = fakeResolver({
        'dev.example.com': ['127.0.0.1'],
        'lan.example.com': ['192.168.1.20'],
        'meta.example.com': ['169.254.169.254'],
        'ula.example.com': ['fd00::1'],
      });
      expect(await validateWebhookUrl('https://dev.example.com/', { resolver, allowLoopback: true })).toMatchObject({
        address: '127.0.0.1',
      });
      await refusal('https://lan.example.com/', { resolver, allowLoopback: true });
      await refusal('https://meta.example.com/', { resolver, allowLoopback: true });
      await refusal('https://ula.example.com/', { resolver, allowLoopback: true });
      await refusal('http://[fe80::1]/', { resolver, allowLoopback: true });
    });
  });

  it.each(['https://user:pass@hooks.example.com/', 'https://user@hooks.example.com/', 'https://:secret@hooks.example.com/'])(
    'refuses userinfo in %s',
    async (raw) => {
      const resolver = fakeResolver({ 'hooks.example.com': [PUBLIC_V4] });
      expect((await refusal(raw, { resolver })).message).toBe('webhook_url must not contain a user name or password');
      expect(resolver.calls).toEqual([]);
    },
  );

  it('refuses a URL longer than 2048 characters and accepts one of exactly 2048', async () => {
    const resolver = fakeResolver({ 'hooks.example.com': [PUBLIC_V4] });
    const base = 'https://hooks.example.com/';
    const exact = base + 'a'.repeat(2048 - base.length);
    expect((await validateWebhookUrl(exact, { resolver })).url).toBe(exact);
    const err = await refusal(exact + 'a', { resolver });
    expect(err.message).toBe('webhook_url must be at most 2048 characters');
  });

  it('honours a custom maxLength', async () => {
    const resolver = fakeResolver({ 'hooks.example.com': [PUBLIC_V4] });
    await refusal('https://hooks.example.com/long-path', { resolver, maxLength: 20 });
  });

  it.each([42, null, undefined, {}, ['https://hooks.example.com/'], ''])('refuses the non-URL value %j', async (raw) => {
    await refusal(raw, { resolver: fakeResolver({}) });
  });

  it.each(['not a url', 'hooks.example.com/path', '//hooks.example.com/', 'https://', 'https://exa mple.com/'])(
    'refuses the unparsable %j',
    async (raw) => {
      await refusal(raw, { resolver: fakeResolver({}) });
    },
  );

  describe('port', () => {
    it.each(['https://hooks.example.com/', 'https://hooks.example.com:443/', 'https://hooks.example.com:8443/', 'https://8.8.8.8:8443/'])(
      'accepts %s',
      async (raw) => {
        const resolver = fakeResolver({ 'hooks.example.com': [PUBLIC_V4] });
        const target = await validateWebhookUrl(raw, { resolver });
        expect([443, 8443]).toContain(target.port);
      },
    );

    it.each([
      'https://hooks.example.com:8080/',
      'https://hooks.example.com:22/',
      'https://hooks.example.com:80/',
      'https://hooks.example.com:444/',
      'https://hooks.example.com:65535/',
      'https://8.8.8.8:8080/',
      'https://[2606:4700:4700::1111]:22/',
    ])('refuses %s before asking DNS', async (raw) => {
      const resolver = fakeResolver({ 'hooks.example.com': [PUBLIC_V4] });
      expect((await refusal(raw, { resolver })).message).toBe('webhook_url port must be 443 or 8443');
      expect(resolver.calls).toEqual([]);
    });

    it('lets a loopback target name any port, only with allowLoopback', async () => {
      const resolver = fakeResolver({ localhost: ['127.0.0.1'], 'dev.example.com': ['127.0.0.1', '::1'] });
      for (const raw of ['http://127.0.0.1:8080/h', 'http://localhost:22/h', 'http://[::1]:5000/h', 'https://dev.example.com:9000/h', 'http://127.0.0.1:80/h']) {
        await expect(validateWebhookUrl(raw, { resolver, allowLoopback: true })).resolves.toMatchObject({ address: expect.any(String) });
        await refusal(raw, { resolver });
      }
    });

    it('with allowLoopback still holds a public target to 443 and 8443', async () => {
      const resolver = fakeResolver({ 'hooks.example.com': [PUBLIC_V4], 'half.example.com': ['127.0.0.1', PUBLIC_V4] });
      expect((await validateWebhookUrl('https://hooks.example.com:8443/', { resolver, allowLoopback: true })).port).toBe(8443);
      for (const raw of ['https://hooks.example.com:8080/', 'https://half.example.com:8080/', 'https://8.8.8.8:22/']) {
        expect((await refusal(raw, { resolver, allowLoopback: true })).message).toBe('webhook_url port must be 443 or 8443');
      }
    });

    it('is skipped with anyPort (the page reader), and only there', async () => {
      const resolver = fakeResolver({ 'hooks.example.com': [PUBLIC_V4] });
      expect((await validateWebhookUrl('https://hooks.example.com:8080/', { resolver, anyPort: true })).port).toBe(8080);
    });
  });

  it('refuses port 0', async () => {
    await refusal('https://8.8.8.8:0/', { resolver: fakeResolver({}) });
  });
});
