import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isPublicAddress } from './guardedFetch.js';

describe('isPublicAddress', () => {
  it('refuses every private, loopback, link-local and special address, in every spelling', () => {
    const refused = [
      '127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '255.255.255.255', '224.0.0.1',
      '::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1', 'ff02::1', '100::1', '2001:db8::1',
      // IPv6 forms embedding a private IPv4 address: mapped, compatible, translated, NAT64, 6to4
      '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::7f00:1', '::127.0.0.1', '::a00:1', '::a9fe:a9fe', '::ffff:0:7f00:1',
      '64:ff9b::7f00:1', '64:ff9b::10.0.0.1', '64:ff9b::a9fe:a9fe', '2002:7f00:1::', '2002:c0a8:101::1', '2002:a9fe:a9fe::',
      // Teredo carries its client's address obscured: never public
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      'not an address', '', '127.1', '0x7f.0.0.1',
    ];
    for (const address of refused) assert.equal(isPublicAddress(address), false, address);
  });

  it('accepts public IPv4 and IPv6 addresses, and IPv6 forms that embed a public IPv4 address', () => {
    const accepted = ['8.8.8.8', '1.1.1.1', '93.184.216.34', '2606:4700::1111', '2a00:1450:4001:80b::200e', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1'];
    for (const address of accepted) assert.equal(isPublicAddress(address), true, address);
  });
});
