import { describe, expect, it } from 'vitest';
import { refusedAddress } from '../../src/lib/webhook-address.ts';
import { checkWebhookUrl } from '../../src/resources/webhooks/webhook.service.ts';

describe('webhook addresses', () => {
  it.each([
    '127.0.0.1',
    '127.1.2.3',
    '10.0.0.1',
    '172.16.5.4',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '169.254.170.2',
    '100.100.100.200',
    '100.64.0.1',
    '0.0.0.0',
    '255.255.255.255',
    '224.0.0.1',
    '192.0.2.1',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd00:ec2::254',
    '::ffff:127.0.0.1',
    '::ffff:169.254.169.254',
    '64:ff9b::a00:1',
    'ff02::1',
  ])('refuses %s', (address) => {
    expect(refusedAddress(address)).not.toBeNull();
  });

  it.each(['93.184.216.34', '8.8.8.8', '1.1.1.1', '172.32.0.1', '2606:4700:4700::1111', '2001:4860:4860::8888'])(
    'takes the public address %s',
    (address) => {
      expect(refusedAddress(address)).toBeNull();
    },
  );

  // As a URL's host or a DNS answer gives them: `[::127.0.0.1]` reaches here as `::7f00:1`.
  it.each(['::7f00:1', '::a9fe:a9fe', '::a00:1', '::808:808'])(
    'refuses the IPv4-compatible address %s, a form no public host uses',
    (address) => {
      expect(refusedAddress(address)).toMatch(/IPv4-compatible/);
    },
  );

  // RFC 8215 lets a site put its IPv4 address anywhere RFC 6052 allows under the prefix, so it cannot be read back.
  it.each(['64:ff9b:1::a9fe:a9fe', '64:ff9b:1::808:808', '64:ff9b:1:7f00:0:100:808:808'])(
    'refuses %s in the NAT64 local-use prefix, whatever it embeds',
    (address) => {
      expect(refusedAddress(address)).toMatch(/NAT64 local-use/);
    },
  );

  it('the well-known NAT64 prefix is judged by the IPv4 address it embeds', () => {
    expect(refusedAddress('64:ff9b::a9fe:a9fe')).toMatch(/metadata/);
    expect(refusedAddress('64:ff9b::7f00:1')).toMatch(/loopback/);
    expect(refusedAddress('64:ff9b::808:808')).toBeNull();
  });

  it('names metadata addresses as such', () => {
    expect(refusedAddress('169.254.169.254')).toMatch(/metadata/);
    expect(refusedAddress('fd00:ec2::254')).toMatch(/metadata/);
  });

  const closed = { allowHttp: false, allowPrivate: false, resolve: async () => ['93.184.216.34'] };

  it('a refusal never names the private address a host name resolved to', async () => {
    for (const address of ['10.1.2.3', '169.254.169.254', 'fd12:3456::7', '::ffff:192.168.7.7']) {
      const error = await checkWebhookUrl('https://internal.example/hook', {
        ...closed,
        resolve: async () => [address],
      }).catch((err: Error) => err);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toBe('url: the host internal.example resolves to a private address');
    }
  });

  it('a URL must be https unless WEBHOOK_ALLOW_HTTP is on', async () => {
    await expect(checkWebhookUrl('http://example.com/hook', closed)).rejects.toThrow(/https only/);
    await expect(checkWebhookUrl('https://example.com/hook', closed)).resolves.toBe('https://example.com/hook');
    await expect(checkWebhookUrl('http://example.com/hook', { ...closed, allowHttp: true })).resolves.toBe(
      'http://example.com/hook',
    );
    await expect(checkWebhookUrl('ftp://example.com/', closed)).rejects.toThrow(/https only/);
    await expect(checkWebhookUrl('https://user:pw@example.com/', closed)).rejects.toThrow(/password/);
  });

  it('a URL whose host is or resolves to a private address is refused at creation', async () => {
    await expect(checkWebhookUrl('https://127.0.0.1/hook', closed)).rejects.toThrow(/not a public address/);
    await expect(checkWebhookUrl('https://169.254.169.254/latest', closed)).rejects.toThrow(/metadata/);
    await expect(checkWebhookUrl('https://[::1]/hook', closed)).rejects.toThrow(/not a public address/);
    await expect(checkWebhookUrl('https://[::127.0.0.1]/hook', closed)).rejects.toThrow(/not a public address/);
    await expect(checkWebhookUrl('https://[::a9fe:a9fe]/latest', closed)).rejects.toThrow(/not a public address/);
    await expect(checkWebhookUrl('https://[64:ff9b:1::a00:1]/hook', closed)).rejects.toThrow(/not a public address/);
    const toLoopback = { ...closed, resolve: async () => ['93.184.216.34', '127.0.0.1'] };
    await expect(checkWebhookUrl('https://rebind.example/hook', toLoopback)).rejects.toThrow(
      /^url: the host rebind\.example resolves to a private address$/,
    );
    await expect(checkWebhookUrl('https://localhost/hook', { ...closed, resolve: undefined })).rejects.toThrow(
      /the host localhost resolves to a private address/,
    );
    await expect(checkWebhookUrl('https://127.0.0.1/hook', { ...closed, allowPrivate: true })).resolves.toBe(
      'https://127.0.0.1/hook',
    );
  });
});
