import APNsMock
import Foundation
import RelayTestSupport
import Synchronization
import Testing

/// The one way tests start a relay (``TestRelay``) gives the same relay in each of its modes: the API
/// answers alike and a message reaches the mock APNs.
@Suite struct TestRelayModesTests {
    /// In process through the router, live on a socket, and as a `push-relay serve` child: a registered
    /// device gets the room's message, the notification settles as sent, and errors are the relay's JSON.
    @Test(arguments: [TestRelay.Mode.router, .live, .process])
    func aMessageReachesTheMockInEveryMode(mode: TestRelay.Mode) async throws {
        try await withRelayAndMock(mode: mode) { harness in
            if mode == .process {
                #expect(try harness.testRelay.process.process.isRunning)
                #expect((try? harness.relay) == nil, "a process relay runs no relay in this process")
            }
            let token = randomToken()
            try await harness.register(token, user: "bob", rooms: ["lobby"])
            let answer = try await harness.webhook(
                ["roomId": "lobby", "senderId": "alice", "text": "hello", "messageId": UUID().uuidString]
            )
            #expect(answer.devices == 1)
            let view = try await harness.settled(answer.notificationId)
            #expect(view.counts.sent == 1)
            #expect(view.delivery(for: token)?.status == "sent")
            let pushes = harness.requests(to: token)
            #expect(pushes.count == 1)
            let payload = try #require(try pushes.first.map { try JSONSerialization.jsonObject(with: $0.body) })
            let aps = try #require((payload as? [String: Any])?["aps"] as? [String: Any])
            #expect(aps["alert"] != nil, "\(payload)")

            let unknown = try await harness.call("GET", "/v1/notifications/\(UUID().uuidString)")
            #expect(unknown.status == 404, "\(unknown.text)")
            #expect(unknown.error?.code == "not_found", "\(unknown.text)")
            let unauthorized = try await harness.call("GET", "/v1/users/bob/devices", authorize: false)
            #expect(unauthorized.status == 401, "\(unauthorized.text)")
        }
    }

    /// A relay stopped and started again (a restart) keeps what it stored.
    @Test(arguments: [TestRelay.Mode.live, .process])
    func aRestartedRelayKeepsItsDevices(mode: TestRelay.Mode) async throws {
        try await withRelayAndMock(mode: mode) { harness in
            let token = randomToken()
            try await harness.register(token, user: "carol", rooms: ["lobby"])
            await harness.stopRelay()
            try await harness.startRelay()
            let devices = try await harness.devices(of: "carol")
            #expect(devices.map(\.token) == [token])
        }
    }

    /// A body that throws still stops the relay: nothing listens on its port any more, and a process
    /// relay has exited.
    @Test(arguments: [TestRelay.Mode.router, .live, .process])
    func aFailingBodyStillStopsTheRelay(mode: TestRelay.Mode) async throws {
        struct Planned: Error {}
        try await withRelayTestBed(appCount: 1, script: MockScript(), configure: { _ in }) { bed in
            let relay = bed.testRelay(mode: mode)
            let seen = Mutex<(port: Int, process: RelayProcess?)>((0, nil))
            await #expect(throws: Planned.self) {
                try await relay.run {
                    let port = try relay.port
                    let process = mode == .process ? try relay.process : nil
                    seen.withLock { $0 = (port, process) }
                    #expect(try await relay.call("GET", "/healthz").status == 200)
                    // The kernel lists sockets in pieces while they come and go: a read may miss one, so a
                    // listening socket is looked for a few times.
                    var listening = false
                    for _ in 0..<5 where !listening { listening = try Self.listens(on: port) }
                    #expect(listening == (mode != .process), "\(mode) on \(port)")
                    throw Planned()
                }
            }
            let (port, process) = seen.withLock { $0 }
            #expect(port > 0)
            #expect((try? relay.port) == nil, "the relay still runs")
            #expect(process?.process.isRunning != true, "the serve process still runs")
            // This process's own sockets: a port freed here may be taken at once by a test running beside.
            let listening = try Self.listens(on: port)
            #expect(!listening, "this process still listens on \(port)")
        }
    }

    /// Whether a socket of this process listens on TCP `port` (IPv4 or IPv6): the listening sockets' inodes
    /// in /proc/net/tcp and tcp6 (state 0A), against the sockets among this process's descriptors.
    static func listens(on port: Int) throws -> Bool {
        var inodes: Set<String> = []
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            // Read to its end: a /proc file says it has no size, and holds a line per socket of the machine.
            let handle = try #require(FileHandle(forReadingAtPath: table))
            defer { try? handle.close() }
            let text = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                guard fields.count > 9, fields[3] == "0A",
                    let local = fields[1].split(separator: ":").last, Int(local, radix: 16) == port
                else { continue }
                inodes.insert(String(fields[9]))
            }
        }
        let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
        return descriptors.contains { descriptor in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")
            else { return false }
            return target.hasPrefix("socket:[") && inodes.contains(String(target.dropFirst(8).dropLast()))
        }
    }
}
