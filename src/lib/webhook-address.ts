import ipaddr from 'ipaddr.js';

/**
 * Where a webhook may be delivered (DECISIONS "Webhooks", Safety): only to public unicast
 * addresses, unless WEBHOOK_ALLOW_PRIVATE is on. Loopback, private, link-local, unique-local,
 * carrier-grade NAT, multicast, reserved and the cloud metadata services are refused, and so
 * is an IPv6 form that embeds one of them (IPv4-mapped, the well-known NAT64 prefix). Two
 * IPv6 forms are refused whole: IPv4-compatible (`::/96`, deprecated by RFC 4291, which an
 * old tunnel may still carry to the IPv4 address) and the NAT64 local-use prefix
 * (`64:ff9b:1::/48`, RFC 8215: not globally reachable, its IPv4 address placed as each site
 * chooses).
 * The delivery's own DNS look-up is checked again at connect time (jobs/webhook-sender.ts),
 * so a name that resolves to a public address when the endpoint is made and to 127.0.0.1
 * later gains nothing.
 */

/** Cloud metadata addresses outside the ranges refused anyway (AWS, GCP, Azure, Alibaba, Oracle). */
const METADATA = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200', '192.0.0.192', 'fd00:ec2::254']);

const NAT64 = ipaddr.IPv6.parseCIDR('64:ff9b::/96');
const NAT64_LOCAL = ipaddr.IPv6.parseCIDR('64:ff9b:1::/48');
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');

/** Why an address is refused, or null when a delivery may go there. */
export function refusedAddress(address: string): string | null {
  if (!ipaddr.isValid(address)) return `"${address}" is not an IP address`;
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6') {
    const v6 = ip as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) ip = v6.toIPv4Address();
    // NAT64's well-known prefix: the IPv4 address rides in the last 32 bits (RFC 6052).
    else if (v6.match(NAT64)) ip = new ipaddr.IPv4(v6.toByteArray().slice(12));
    else if (v6.match(NAT64_LOCAL)) return `${address} is a NAT64 local-use address`;
    // `::` and `::1` lie in ::/96 too; the range below names them.
    else if (v6.match(IPV4_COMPATIBLE) && v6.range() === 'unicast') return `${address} is an IPv4-compatible address`;
  }
  const normal = ip.toNormalizedString();
  if (METADATA.has(normal) || METADATA.has(ip.toString())) return `${address} is a cloud metadata address`;
  const range = ip.range();
  if (range !== 'unicast') return `${address} is a ${range} address`;
  return null;
}

export function isIpAddress(host: string): boolean {
  return ipaddr.isValid(host);
}

/** The address part of a URL's host: IPv6 literals lose their brackets. */
export function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}
