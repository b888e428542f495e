# The node agent's client (docs/node-agent.md), which `netledger-ipam install` makes the installed
# netledger-ipam executable itself when it finds a Perl: the lines above this one are the install's
# (the #! line naming that Perl, then $probe, $sock and $launcher). For ADD, DEL, CHECK, GC and
# STATUS while the socket $probe exists, it sends the plugin's environment and standard input to
# the agent at `agent_socket` from the config, else $sock (the protocol of
# packages/cni/src/agent/agent-protocol.ts: HTTP/1.0 on the unix socket), and prints the answer.
# Anything else goes to $launcher, the shell launcher in netledger-ipam.d/ beside this file, which
# runs the plugin in Node: another command (VERSION, install, ...), no socket, or an agent that
# cannot serve the request (nobody listening, not connected and sent within
# `agent_connect_timeout` seconds (default 2), a refusal, a connection cut short), then with the
# same standard input and NETLEDGER_AGENT_TRIED set; that is safe whatever the agent did, since
# every command is idempotent. A request sent but not answered within `agent_answer_timeout`
# seconds (default 60) fails with code 11 (try again later): the agent may still be running it,
# and rolls an ADD back once it finds this client gone. Every failure is CNI error JSON on stdout,
# never a bare Perl message.
#
# Perl core built-ins only, no module (not even strict or warnings), because every `use` is files
# to find and compile on each container start; socket(2) and connect(2) take Linux's constants.
binmode STDIN;
binmode STDOUT;
binmode STDERR;

sub fail {
  my ($code, $m) = @_;
  $m =~ s/(["\\])/\\$1/g;
  print STDOUT "{\n    \"code\": $code,\n    \"msg\": \"netledger-ipam: $m\"\n}\n";
  exit 1;
}

# Runs the launcher beside the installed file, which this one may be a symlink (to a symlink) to:
# the kernel resolves the directories of the path, the last component is resolved here.
sub run_launcher {
  my $p = $0;
  for (1 .. 40) {
    my $t = readlink $p;
    last unless defined $t;
    $p = $t =~ m{\A/} ? $t : ($p =~ m{\A(.*/)}s ? $1 : '') . $t;
  }
  my $l = ($p =~ m{\A(.*/)}s ? $1 : '') . $launcher;
  fail(999, "$l is missing or unreadable: run netledger-ipam install again") unless -r $l;
  exec('/bin/sh', $l, @ARGV) or fail(999, "cannot run $l: $!");
}

# Without the install's lines: an older install's launcher ran this file from netledger-ipam.d/ (as
# `perl netledger-ipam-agent.pl SOCKET LAUNCHER ARGS`, having seen the socket) while an install
# replaced it. Then the launcher beside this file, already the new one, serves the fallback.
unless (defined $launcher) {
  ($sock) = splice(@ARGV, 0, 2);
  ($probe, $launcher) = ($sock, 'netledger-ipam');
}

my $cmd = $ENV{CNI_COMMAND};
run_launcher()
  unless defined $cmd
  && $cmd =~ /\A(?:ADD|DEL|CHECK|GC|STATUS)\z/
  && !length($ENV{NETLEDGER_AGENT_TRIED} // '')
  && -S $probe;

my $in = do { local $/; <STDIN> };
$in = '' unless defined $in;
# `agent_socket` from the config, else the default. A key this cannot read (escapes, two of them)
# is no risk: the agent parses the config and sends back a request naming another socket.
$sock = $1 if $in =~ /"agent_socket"\s*:\s*"([^"\\]+)"/;
# The waits, in whole seconds as the plugin reads them (it refuses other values).
my ($connect_s, $answer_s) = (2, 60);
$connect_s = $1 if $in =~ /"agent_connect_timeout"\s*:\s*(\d+)\s*[,}]/ && $1 >= 1 && $1 <= 60;
$answer_s = $1 if $in =~ /"agent_answer_timeout"\s*:\s*(\d+)\s*[,}]/ && $1 >= 1 && $1 <= 600;

# Runs the launcher with the same standard input, which a child feeds through a pipe.
sub fall_back {
  $ENV{NETLEDGER_AGENT_TRIED} = $sock;
  $SIG{PIPE} = 'DEFAULT';
  pipe(my $r, my $w) or fail(11, "pipe: $!");
  my $pid = fork();
  fail(11, "fork: $!") unless defined $pid;
  if ($pid == 0) {
    close $r;
    print $w $in;
    close $w;
    exit 0;
  }
  close $w;
  open(STDIN, '<&', $r) or fail(11, "stdin: $!");
  close $r;
  run_launcher();
}

my $body = join('', map { "$_=$ENV{$_}\0" } grep { !/[=\0]/ } keys %ENV) . "\0" . $in;
my $req = "POST /v1/cni HTTP/1.0\r\nHost: netledger-node\r\nUser-Agent: netledger-ipam-perl\r\n"
  . "Content-Type: application/octet-stream\r\nContent-Length: " . length($body) . "\r\n\r\n" . $body;
# AF_UNIX 1, SOCK_STREAM 1; sockaddr_un is the family (native short) and the path. An agent that
# closes the connection early makes a write fail (EPIPE) rather than kill this process.
$SIG{PIPE} = 'IGNORE';
socket(my $s, 1, 1, 0) or fall_back();
# SOL_SOCKET 1, SO_SNDTIMEO 21 (a struct timeval): connect(2) to an agent whose queue is full (it is
# stopped or hung) and each write give up after $connect_s seconds; the request is then not whole,
# so the agent cannot run it, and falling back is safe.
setsockopt($s, 1, 21, pack('l!l!', $connect_s, 0)) or fall_back();
connect($s, pack('S', 1) . $sock) or fall_back();
my $off = 0;
while ($off < length $req) {
  my $n = syswrite($s, $req, length($req) - $off, $off);
  fall_back() unless $n;
  $off += $n;
}
# The request is whole: from now on the agent may run it, so this client must not run it too.
my $resp = '';
my $read = eval {
  local $SIG{ALRM} = sub { die "timeout\n" };
  alarm $answer_s;
  while (1) {
    my $n = sysread($s, $resp, 65536, length $resp);
    last unless defined $n && $n > 0;
  }
  alarm 0;
  1;
};
alarm 0;
fail(11, "the node agent at $sock did not answer within $answer_s s: try again later")
  if !$read && $@ eq "timeout\n";
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
