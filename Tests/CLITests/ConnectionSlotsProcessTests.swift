import Foundation
import RelayTestSupport
import Testing

/// The issue's flood against `push-relay serve` with caps scaled down (a total of 2,000, 16 per address):
/// 150 addresses in distinct /24s (127.X.Y.1), each at its cap, send a request's headers and then trickle
/// its body a byte a second, reconnecting whenever the relay drops one. A client from yet another /24 is
/// answered on every call, and so is the admin listener. The flood runs in a perl process of its own, so
/// this test process keeps few descriptors (see ConnectionExhaustionTests).
@Suite struct ConnectionSlotsProcessTests {
    /// Opens `$3` connections from each of `$2` addresses 127.(50 + i / 100).(i % 100).1 to 127.0.0.1:`$1`,
    /// sends each the headers of a 60,000-byte POST with the user credential `$4` for an app with `userAuth`
    /// (a good one: the relay reads the body of a user whose credential passed, and refuses any other before
    /// its body) (printing `opened N` once all are tried), then once a second sends every open one a byte of
    /// body and reopens every one the relay closed, printing `reconnects N` (the total so far), until it is
    /// killed.
    static let floodScript = #"""
        use strict;
        use warnings;
        use IO::Socket::INET;
        use Errno qw(EAGAIN EWOULDBLOCK EINPROGRESS);
        $SIG{PIPE} = 'IGNORE';
        $| = 1;
        my ($port, $addresses, $each, $token) = @ARGV;
        my $head = "POST /v1/devices HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
            . "Authorization: Bearer $token\r\nX-PushRelay-App: chat\r\nContent-Length: 60000\r\n\r\n";
        sub connect_from {
            my ($source) = @_;
            my $socket = IO::Socket::INET->new(
                PeerAddr => '127.0.0.1', PeerPort => $port, LocalAddr => $source, Proto => 'tcp', Timeout => 2
            ) or return undef;
            $socket->blocking(0);
            my $sent = syswrite($socket, $head);
            return defined $sent ? $socket : undef;
        }
        my @connections;
        for my $index (0 .. $addresses - 1) {
            my $source = sprintf('127.%d.%d.1', 50 + int($index / 100), $index % 100);
            push @connections, [$source, connect_from($source)] for 1 .. $each;
        }
        my $opened = grep { defined $_->[1] } @connections;
        print "opened $opened\n";
        my $reconnects = 0;
        while (1) {
            for my $connection (@connections) {
                my $socket = $connection->[1];
                if (defined $socket) {
                    my $read = sysread($socket, my $buffer, 4096);
                    my $closed = (defined $read && $read == 0) || (!defined $read && $! != EAGAIN && $! != EWOULDBLOCK);
                    $closed ||= !defined syswrite($socket, 'a') && $! != EAGAIN && $! != EWOULDBLOCK;
                    if ($closed) { close $socket; $socket = undef; }
                }
                if (!defined $socket) {
                    $socket = connect_from($connection->[0]);
                    $reconnects++ if defined $socket;
                }
                $connection->[1] = $socket;
            }
            print "reconnects $reconnects\n";
            sleep 1;
        }
        """#

    /// The perl process running ``floodScript``; killed (by its process id) when released.
    final class Flood {
        let process: ChildProcess
        let output: URL

        init(port: Int, addresses: Int, each: Int, token: String, in directory: URL) throws {
            output = directory.appendingPathComponent("flood.stdout")
            let errors = directory.appendingPathComponent("flood.stderr")
            try Data().write(to: output)
            try Data().write(to: errors)
            let script = directory.appendingPathComponent("flood.pl")
            try Data(ConnectionSlotsProcessTests.floodScript.utf8).write(to: script)
            process = try ChildProcess(
                "/bin/bash",
                [
                    "-c", #"ulimit -n "$(ulimit -Hn)" && exec /usr/bin/perl "$@""#, "flood", script.path, "\(port)",
                    "\(addresses)", "\(each)", token,
                ],
                standardOutput: output.path,
                standardError: errors.path
            )
        }

        var lines: [Substring] {
            ((try? String(contentsOf: output, encoding: .utf8)) ?? "").split(separator: "\n")
        }

        /// The last number printed after `prefix`, waiting up to 60 s for one.
        func last(_ prefix: String) async throws -> Int {
            let deadline = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < deadline {
                if let line = lines.last(where: { $0.hasPrefix(prefix) }) {
                    return Int(line.dropFirst(prefix.count)) ?? 0
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            throw TestFailure(description: "the flood printed no '\(prefix)'")
        }
    }

    /// One call by curl from `source`: the status (`000` when unanswered within 20 s) and seconds taken.
    static func call(_ url: String, from source: String, body: String? = nil) async -> (status: String, seconds: Double)
    {
        var arguments = [
            "-sS", "--interface", source, "--max-time", "20", "-o", "/dev/null", "-w", "%{http_code} %{time_total}",
        ]
        if let body { arguments += ["-H", "Content-Type: application/json", "--data", body] }
        let output = await runToEnd("/usr/bin/curl", arguments + [url]).output.split(separator: " ")
        return (output.first.map(String.init) ?? "", output.count > 1 ? Double(output[1]) ?? -1 : -1)
    }

    @Test func aClientFromAnotherRangeIsAnsweredThroughAFloodOfTricklingBodies() async throws {
        let issuer = UserTokenIssuer.shared
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let relay = try ConnectionExhaustionTests.serve(
            [
                "PUSH_RELAY_HTTP_MAX_CONNECTIONS": "2000", "PUSH_RELAY_HTTP_MAX_CONNECTIONS_PER_ADDRESS": "16",
                "PUSH_RELAY_HTTP_ADMIN_ENABLED": "true", "PUSH_RELAY_HTTP_ADMIN_PORT": "0",
                "PUSH_RELAY_APPS": #"[{"id":"chat","topic":"com.example.chat","apiKeySHA256":[""#
                    + String(repeating: "0", count: 64) + #""],"userAuth":{"jwt":{"publicKeyFiles":[""#
                    + issuer.publicKeyFile + #""],"issuer":""# + issuer.issuer + #"","audience":""#
                    + issuer.audience + #""}}}]"#,
            ],
            in: directory
        )
        let port = try await relay.listeningPort()
        let admin = try #require(URL(string: try await relay.line(startingWith: "PushRelay admin on "))?.port)
        let flood = try Flood(
            port: port,
            addresses: 150,
            each: 16,
            token: try issuer.token(for: "flooder"),
            in: directory.url
        )
        let opened = try await flood.last("opened ")
        #expect(opened > 2000, "the flood opened \(opened) connections")
        // The flood holds the relay near its total before the probes start.
        let deadline = ContinuousClock.now + .seconds(60)
        var held = 0
        while ContinuousClock.now < deadline {
            held = ConnectionExhaustionTests.sockets(of: relay.process.pid)
            if held >= 1700 { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        try #require(held >= 1700, "the relay holds only \(held) sockets")

        var answers: [(status: String, seconds: Double)] = []
        for round in 0..<12 {
            let probe = round % 3
            let answer =
                switch probe {
                case 0: await Self.call("http://127.0.0.1:\(port)/healthz", from: "127.200.0.1")
                case 1: await Self.call("http://127.0.0.1:\(port)/v1/devices", from: "127.200.0.1", body: "{}")
                default: await Self.call("http://127.0.0.1:\(admin)/healthz", from: "127.201.0.1")
                }
            answers.append(answer)
            try await Task.sleep(for: .milliseconds(500))
        }
        let reconnects = try await flood.last("reconnects ")
        print("probe answers (status seconds): \(answers.map { "\($0.status) \($0.seconds)" })")
        print("relay sockets before probing: \(held); flood reconnects: \(reconnects)")
        for (index, answer) in answers.enumerated() {
            let expected = index % 3 == 1 ? "401" : "200"
            #expect(answer.status == expected, "probe \(index): \(answer.status)\n\(relay.stderr)")
        }
        // The relay kept dropping the trickling bodies (by their pace, or to make room) and the flood kept
        // coming back.
        #expect(reconnects > 0)
        relay.signal(SIGTERM)
        #expect(try await relay.exitStatus().exited)
        withExtendedLifetime(flood) {}
    }
}
