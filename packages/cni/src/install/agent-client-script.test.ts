import { describe, expect, it } from 'vitest';
import { agentClientScript } from './agent-client-script.js';

// The executable's head as the install writes it; the client itself (apps/cni-plugin's
// agent-client.pl) runs in apps/cni-plugin/src/agent-client.test.ts.
describe('agentClientScript', () => {
  it('names the Perl on the #! line, then the settings the client reads, then the client', () => {
    const script = agentClientScript({
      perl: '/usr/bin/perl',
      probeSocket: '/run/x/agent.sock',
      client: 'print "client";\n',
    });
    const lines = script.split('\n');
    expect(lines[0]).toBe('#!/usr/bin/perl');
    expect(lines).toContain("my $probe = '/run/x/agent.sock';");
    expect(lines).toContain("my $sock = '/run/netledger/node.sock';");
    expect(lines).toContain("my $launcher = 'netledger-ipam.d/netledger-ipam';");
    expect(script.endsWith('\nprint "client";\n')).toBe(true);
    expect(lines.filter((l) => /^\s*use\s/.test(l))).toEqual([]);
  });

  it.each<[string, { perl: string; probeSocket: string }, RegExp]>([
    ['a relative Perl', { perl: 'perl', probeSocket: '/s' }, /perl: not an absolute plain path/],
    [
      'a Perl path with a quote',
      { perl: "/opt/it's/perl", probeSocket: '/s' },
      /not an absolute plain path/,
    ],
    [
      'a socket path with a quote',
      { perl: '/usr/bin/perl', probeSocket: "/run/a'b.sock" },
      /cannot quote this path for Perl/,
    ],
  ])('refuses %s', (_, args, why) => {
    expect(() => agentClientScript({ ...args, client: '' })).toThrow(why);
  });
});
