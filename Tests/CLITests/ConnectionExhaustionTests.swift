import Foundation
import RelayTestSupport
import Testing

/// The issue's case against `push-relay serve`: a thousand and more connections trickling header bytes
/// from 127.0.0.1 do not keep 127.0.0.2 from its `/healthz` answer. The connections are opened by bash
/// (`/dev/tcp`) in a process of its own and the relay holds its side in its own process: this test process
/// keeps few descriptors, as Foundation's `Process.run` reads past the end of a directory entry when
/// /proc/self/fd lists more than about 1,350 of them, which crashed the parallel tests that start processes.
@Suite struct ConnectionExhaustionTests {
    /// Opens `count` connections to 127.0.0.1:`port` (printing `opened N` once they are open), then sends
    /// every one a byte of a never-ending request header each second until it is killed.
    static let floodScript = #"""
        trap '' PIPE
        ulimit -n "$(ulimit -Hn)"
        fds=()
        for ((i = 0; i < $2; i++)); do
            exec {fd}<>"/dev/tcp/127.0.0.1/$1" || break
            fds+=("$fd")
        done
        echo "opened ${#fds[@]}"
        start='GET /healthz HTTP/1.1'$'\r\n''Host: t'$'\r\n''X-Trickle: '
        for ((i = 0; ; i++)); do
            byte=${start:i:1}
            for fd in "${fds[@]}"; do printf '%s' "${byte:-a}" >&"$fd" 2>/dev/null; done
            sleep 1
        done
        """#

    /// A bash process running ``floodScript``; killed (by its process id) when released.
    final class Flood {
        let process: ChildProcess
        let output: URL

        init(port: Int, count: Int, in directory: URL) throws {
            output = directory.appendingPathComponent("flood.stdout")
            try Data().write(to: output)
            process = try ChildProcess(
                "/bin/bash",
                ["-c", ConnectionExhaustionTests.floodScript, "flood", "\(port)", "\(count)"],
                standardOutput: output.path
            )
        }

        /// How many connections bash opened, once it says (at most 60 s).
        func opened() async throws -> Int {
            let deadline = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < deadline {
                let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
                if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("opened ") }) {
                    return Int(line.dropFirst("opened ".count)) ?? 0
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            throw TestFailure(description: "the flood did not report its connections")
        }
    }

    /// The status of `GET /healthz` sent by curl from 127.0.0.2, waiting up to 30 s for it.
    static func healthzFromAnotherAddress(port: Int) async -> String {
        await runToEnd(
            "/usr/bin/curl",
            [
                "-sS", "--interface", "127.0.0.2", "--max-time", "30", "-o", "/dev/null", "-w", "%{http_code}",
                "http://127.0.0.1:\(port)/healthz",
            ]
        ).output
    }

    /// Sockets the process `pid` holds (its /proc/PID/fd entries that are sockets).
    static func sockets(of pid: Int32) -> Int {
        let directory = "/proc/\(pid)/fd"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return entries.count { entry in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\(entry)"))?
                .hasPrefix("socket:") == true
        }
    }

    /// `serve` on port 0 over a fresh database, with `environment` added.
    static func serve(_ environment: [String: String], in directory: TemporaryDirectory) throws -> RelayProcess {
        var variables = environment
        variables["PUSH_RELAY_STORAGE_SQLITE_PATH"] = directory.url.appendingPathComponent("db.sqlite").path
        return try RelayProcess(
            ["serve", "--port", "0", "--log-level", "warning"],
            environment: variables,
            outputIn: directory.url,
            name: "serve"
        )
    }

    /// With the default limits: the per-address cap (64) holds the flood to 64 of the relay's connections,
    /// the header deadline (10 s) closes those, and 127.0.0.2 is answered.
    @Test func tricklingConnectionsFromOneAddressLeaveTheAPIToOthers() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let relay = try Self.serve([:], in: directory)
        let port = try await relay.listeningPort()
        let flood = try Flood(port: port, count: 1100, in: directory.url)
        #expect(try await flood.opened() == 1100)
        let status = await Self.healthzFromAnotherAddress(port: port)
        let held = Self.sockets(of: relay.process.pid)
        #expect(status == "200", "\(status)\n\(relay.stderr)")
        #expect(held < 100, "the relay holds \(held) sockets")
        withExtendedLifetime(flood) {}
        relay.signal(SIGTERM)
        _ = try await relay.exitStatus()
    }

    /// With the caps per address and per range lifted, the relay holds all 1,100 connections at once (past
    /// `select()`'s 1,024) and still answers 127.0.0.2.
    @Test func moreThan1024ConnectionsAreHeldAtOnce() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let relay = try Self.serve(
            [
                "PUSH_RELAY_HTTP_MAX_CONNECTIONS_PER_ADDRESS": "5000",
                "PUSH_RELAY_HTTP_MAX_CONNECTIONS_PER_PREFIX": "5000",
                "PUSH_RELAY_HTTP_HEADER_TIMEOUT_SECONDS": "120",
            ],
            in: directory
        )
        let port = try await relay.listeningPort()
        let flood = try Flood(port: port, count: 1100, in: directory.url)
        #expect(try await flood.opened() == 1100)
        let deadline = ContinuousClock.now + .seconds(30)
        var held = 0
        repeat {
            held = Self.sockets(of: relay.process.pid)
            if held >= 1100 { break }
            try await Task.sleep(for: .milliseconds(100))
        } while ContinuousClock.now < deadline
        let status = await Self.healthzFromAnotherAddress(port: port)
        #expect(held >= 1100, "the relay holds \(held) sockets")
        #expect(status == "200", "\(status)\n\(relay.stderr)")
        withExtendedLifetime(flood) {}
        relay.signal(SIGTERM)
        _ = try await relay.exitStatus()
    }
}

/// Runs a program to its end on a thread of its own (never on a thread of the cooperative pool); returns its
/// exit status and standard output.
func runToEnd(_ program: String, _ arguments: [String]) async -> (status: Int32, output: String) {
    guard let (termination, output) = try? await ChildProcess.run(program, arguments),
        case .exited(let status) = termination
    else { return (-1, "") }
    return (status, output)
}
