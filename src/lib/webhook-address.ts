import ipaddr from 'ipaddr.js';

// Where a webhook may be delivered (DECISIONS "Webhooks", Safety): public unicast addresses only, unless
// WEBHOOK_ALLOW_PRIVATE; checked at creation and again after DNS at connect time.

/** Cloud metadata addresses outside the ranges refused anyway (AWS, GCP, Azure, Alibaba, Oracle). */
const METADATA = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200', '192.0.0.192', 'fd00:ec2::254']);

/** The well-known NAT64 prefix: its IPv4 address is decoded and checked. */
const NAT64 = ipaddr.IPv6.parseCIDR('64:ff9b::/96');
/** Refused whole: the local-use NAT64 prefix places its IPv4 address as each site chooses (RFC 8215). */
const NAT64_LOCAL = ipaddr.IPv6.parseCIDR('64:ff9b:1::/48');
/** Refused whole: IPv4-compatible IPv6 (RFC 4291, deprecated) may still reach the IPv4 address it embeds. */
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

/** The URL's host when it is an address literal (an IPv6 one without its brackets); null for a name. */
export function literalAddress(url: URL): string | null {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return ipaddr.isValid(host) ? host : null;
}
