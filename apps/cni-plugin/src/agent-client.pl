# netledger-ipam's fast client of the node agent (docs/node-agent.md). The installed launcher execs
# it, when a Perl was found at install time and the agent's socket exists, as
#   perl agent-client.pl DEFAULT_SOCKET LAUNCHER [ARGS...]
# It sends the plugin's environment and standard input to the agent (the protocol of
# packages/cni/src/agent/agent-protocol.ts: HTTP/1.0 on the unix socket) and prints the answer.
# When the agent cannot serve the request (no socket, nobody listening, a refusal, a connection cut
# short), it runs LAUNCHER again with the same standard input and NETLEDGER_AGENT_TRIED set, which
# runs the plugin in Node; that is safe whatever the agent did, since every command is idempotent.
#
# Perl core built-ins only, no module (not even strict or warnings), because every `use` is files
# to find and compile on each container start; socket(2) and connect(2) take Linux's constants.
binmode STDIN;
binmode STDOUT;
binmode STDERR;
my $sock = shift @ARGV;
my $launcher = shift @ARGV;
my $in = do { local $/; <STDIN> };
$in = '' unless defined $in;
# `agent_socket` from the config, else the default. A key this cannot read (escapes, two of them)
# is no risk: the agent parses the config and sends back a request naming another socket.
$sock = $1 if $in =~ /"agent_socket"\s*:\s*"([^"\\]+)"/;

sub fall_back {
  $ENV{NETLEDGER_AGENT_TRIED} = $sock;
  pipe(my $r, my $w) or fail("pipe: $!");
  my $pid = fork();
  fail("fork: $!") unless defined $pid;
  if ($pid == 0) {
    close $r;
    print $w $in;
    close $w;
    exit 0;
  }
  close $w;
  open(STDIN, '<&', $r) or fail("stdin: $!");
  exec('/bin/sh', $launcher, @ARGV) or fail("exec $launcher: $!");
}

sub fail {
  my $m = shift;
  $m =~ s/(["\\])/\\$1/g;
  print STDOUT "{\n    \"code\": 11,\n    \"msg\": \"netledger-ipam: $m\"\n}\n";
  exit 1;
}

my $body = join('', map { "$_=$ENV{$_}\0" } grep { !/[=\0]/ } keys %ENV) . "\0" . $in;
my $req = "POST /v1/cni HTTP/1.0\r\nHost: netledger-node\r\nUser-Agent: netledger-ipam-perl\r\n"
  . "Content-Type: application/octet-stream\r\nContent-Length: " . length($body) . "\r\n\r\n" . $body;
# AF_UNIX 1, SOCK_STREAM 1; sockaddr_un is the family (native short) and the path.
socket(my $s, 1, 1, 0) or fall_back();
connect($s, pack('S', 1) . $sock) or fall_back();
my $off = 0;
while ($off < length $req) {
  my $n = syswrite($s, $req, length($req) - $off, $off);
  fall_back() unless $n;
  $off += $n;
}
my $resp = '';
while (1) {
  my $n = sysread($s, $resp, 65536, length $resp);
  fall_back() unless defined $n;
  last if $n == 0;
}
close $s;
my $at = index($resp, "\r\n\r\n");
fall_back() if $at < 0;
my $head = substr($resp, 0, $at);
my $rest = substr($resp, $at + 4);
fall_back() unless $head =~ m{\AHTTP/1\.[01] 200 };
my %h = map { /\A([^:]+):\s*(.*?)\s*\z/ ? (lc($1), $2) : () } split /\r\n/, $head;
fall_back() unless defined $h{'content-length'} && $h{'content-length'} eq length($rest);
my $code = $h{'x-cni-exit-code'};
my $n = $h{'x-cni-stdout-length'};
fall_back() unless defined $code && $code =~ /\A[01]\z/ && defined $n && $n =~ /\A\d+\z/ && $n <= length $rest;
print STDOUT substr($rest, 0, $n);
print STDERR substr($rest, $n);
exit $code;
