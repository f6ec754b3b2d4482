import Foundation
import RelayCore
import RelayStore
import RelayTestSupport
import Testing

@testable import RelayPostgres

/// Issue 14 at the process level: three `push-relay serve` processes on one PostgreSQL database and one
/// `push-relay mock-apns` process, a 5,000-device room and 200 smaller rooms written to through all three,
/// and one relay SIGKILLed in the middle. Every device gets every message; what is sent twice is at most
/// what the killed relay had in flight (its `delivery.concurrency`), and the mock sees one provider token.
@Suite struct SeveralRelaysProcessTests {
    static let devices = 5000
    static let rooms = 200
    /// The killed relay's in-flight window, well below its lanes (twice this) and its claim batches (1,000).
    static let killedConcurrency = 8
    static let keyId = "ABC123DEFG"
    static let teamId = "TEAM123456"
    static let topic = "com.example.multi"

    @Test func threeRelaysLoseNothingWhenOneIsKilled() async throws {
        let began = ContinuousClock.now
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let databaseURL = try await PostgresCluster.shared().newDatabaseURL()
        let record = directory.url.appendingPathComponent("mock-record.jsonl")
        // Every answer comes after 150 ms, so the fan-out lasts seconds and the kill falls inside it however
        // fast the machine is, and however long this test's own polling is held up by a busy one.
        let script = directory.url.appendingPathComponent("mock-script.json")
        try Data(#"{"devices": [{"token": "*", "delayMs": 150}]}"#.utf8).write(to: script)
        let mock = try RelayProcess(
            [
                "mock-apns", "--port", "0", "--quiet", "--record", record.path, "--script", script.path,
                "--topics", Self.topic,
                "--key", "\(Self.keyId):\(Self.teamId):fixtures/keys/AuthKey_\(Self.keyId).pub.pem",
            ],
            outputIn: directory.url,
            name: "mock"
        )
        let mockAddress = try await mock.line(startingWith: "mock APNs listening on ")
        let mockPort = try #require(URL(string: String(mockAddress.prefix { $0 != " " }))?.port)
        let (apiKey, apiKeyHash) = try await Self.newAPIKey(in: directory)

        let relays = try (0..<3).map { index in
            try RelayProcess(
                ["serve", "--port", "0", "--log-level", "error"],
                environment: Self.environment(
                    index: index,
                    database: databaseURL,
                    apps: Self.apps(mockPort: mockPort, apiKeyHash: apiKeyHash),
                    directory: directory
                ),
                outputIn: directory.url,
                name: "relay\(index)"
            )
        }
        var ports: [Int] = []
        for relay in relays { ports.append(try await relay.listeningPort()) }
        let clients = ports.map { RelayClient(port: $0, apiKey: apiKey) }

        // Every device in the big room and in one of the small ones: some through each relay's API, the rest
        // written into the database in two statements (5,000 registrations through HTTP take longer than
        // the rest of the test on a busy machine).
        let tokens = (0..<Self.devices).map { index in
            (0..<28).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
                + String(format: "%08x", index)
        }
        let viaAPI = 30
        try await Self.inParallel(viaAPI, width: 6) { index in
            _ = try await clients[index % 3].object(
                "POST",
                "/v1/devices",
                json: [
                    "token": tokens[index], "userId": "user\(index)", "rooms": ["crowd", "r\(index % Self.rooms)"],
                ],
                status: [201]
            )
        }
        try await PostgresStore(url: databaseURL, logger: .disabled())
            .seedDevices(app: "multi", tokens: Array(tokens.dropFirst(viaAPI)), from: viaAPI, rooms: Self.rooms)
        let seeded = ContinuousClock.now

        // The big fan-out through relay 1, then the 200 small ones spread over the three.
        let crowd = try await Self.post(room: "crowd", through: clients[1])
        try await Self.inParallel(Self.rooms, width: 8) { index in
            _ = try await Self.post(room: "r\(index)", through: clients[index % 3])
        }
        let expected = 2 * Self.devices

        // Relay 0 is killed while the pushes are going out.
        let deadline = ContinuousClock.now + .seconds(60)
        while Self.recordedLines(record) < expected / 4 {
            try #require(ContinuousClock.now < deadline, "the fan-out did not get going")
            try await Task.sleep(for: .milliseconds(5))
        }
        let sentAtKill = Self.recordedLines(record)
        relays[0].signal(SIGKILL)
        let killed = try await relays[0].exitStatus()
        #expect(!killed.exited && killed.status == SIGKILL, "\(killed)")
        try #require(sentAtKill < expected, "the kill came after everything was sent")

        // Its leases expire after four seconds; the others take that work then.
        var pushes = Self.recorded(record)
        while Set(pushes.map(\.delivery)).count < expected {
            try #require(
                ContinuousClock.now < deadline,
                "\(expected - Set(pushes.map(\.delivery)).count) pushes never sent"
            )
            try await Task.sleep(for: .milliseconds(50))
            pushes = Self.recorded(record)
        }
        let view = try await clients[1].object("GET", "/v1/notifications/\(crowd)", status: [200])
        let counts = try #require(view["counts"] as? [String: Any])
        #expect(counts["pending"] as? Int == 0 && counts["sent"] as? Int == Self.devices)
        for relay in relays.dropFirst() { relay.signal(SIGTERM) }
        for relay in relays.dropFirst() { _ = try await relay.exitStatus() }
        mock.signal(SIGTERM)
        _ = try await mock.exitStatus()
        pushes = Self.recorded(record)

        // Every device got both of its messages: the big room's and its small room's.
        let byToken = Dictionary(grouping: pushes, by: \.token).mapValues { Set($0.map(\.delivery)).count }
        #expect(byToken.count == Self.devices && byToken.values.allSatisfy { $0 == 2 })
        let duplicates = pushes.count - Set(pushes.map(\.delivery)).count
        #expect(duplicates <= Self.killedConcurrency, "\(duplicates) pushes sent twice")
        // The provider token is shared through the database: the mock sees one, from all three relays.
        let distinctTokens = Set(pushes.map(\.authorization))
        #expect(distinctTokens.count == 1, "\(distinctTokens.count) provider tokens")
        print(
            "several relays: \(pushes.count) pushes for \(expected) deliveries, \(duplicates) sent twice "
                + "(killed relay's window \(Self.killedConcurrency), \(sentAtKill) sent at the kill), "
                + "\(distinctTokens.count) provider token(s), seeding \(seeded - began), "
                + "wall time \(ContinuousClock.now - began)"
        )
    }

    /// The apps setting of every relay: one app sending to the mock with the fixture provider key, with
    /// `ditto` as its `apps[].ditto` when given.
    static func apps(mockPort: Int, apiKeyHash: String, ditto: [String: Any]? = nil) -> String {
        let endpoint = ["baseURL": "https://127.0.0.1:\(mockPort)", "caFile": "fixtures/tls/ca.pem"]
        var app: [String: Any] = [
            "id": "multi", "topic": topic, "apiKeySHA256": [apiKeyHash],
            "apns": [
                "credentials": ["keyFile": "fixtures/keys/AuthKey_\(keyId).p8", "keyId": keyId, "teamId": teamId],
                "defaultEnvironment": "sandbox",
                "endpoints": ["production": endpoint, "sandbox": endpoint],
            ],
        ]
        app["ditto"] = ditto
        let data = try! JSONSerialization.data(withJSONObject: [app])
        return String(decoding: data, as: UTF8.self)
    }

    /// Relay `index`'s variables: the shared database, its own instance id and data folder; relay 0 (the one
    /// killed) sends ``killedConcurrency`` at a time and leases for 4 s, the others poll every 250 ms.
    static func environment(
        index: Int,
        database: String,
        apps: String,
        directory: TemporaryDirectory
    )
        -> [String: String]
    {
        [
            "PUSH_RELAY_STORAGE_POSTGRES_URL": database,
            "PUSH_RELAY_STORAGE_SQLITE_PATH": directory.url.appendingPathComponent("relay\(index)/db.sqlite").path,
            "PUSH_RELAY_DELIVERY_INSTANCE_ID": "relay-\(index)",
            "PUSH_RELAY_DELIVERY_CONCURRENCY": index == 0 ? "\(killedConcurrency)" : "32",
            "PUSH_RELAY_DELIVERY_LEASE_SECONDS": index == 0 ? "4" : "120",
            "PUSH_RELAY_DELIVERY_POLL_INTERVAL_MILLISECONDS": "250",
            "PUSH_RELAY_APPS": apps,
        ]
    }

    /// A new API key and its SHA-256 from `push-relay keys new`.
    static func newAPIKey(in directory: TemporaryDirectory) async throws -> (key: String, hash: String) {
        let keys = try RelayProcess(["keys", "new"], outputIn: directory.url, name: "keys")
        _ = try await keys.exitStatus()
        let key = try await keys.line(startingWith: "API key: ", timeout: .seconds(1))
        return (key, try await keys.line(startingWith: "apiKeySHA256: ", timeout: .seconds(1)))
    }

    /// Posts one message to `room`; returns the notification id.
    static func post(room: String, through client: RelayClient) async throws -> String {
        let accepted = try await client.object(
            "POST",
            "/v1/webhooks/did-send-message",
            json: ["roomId": room, "senderId": "speaker", "text": "to \(room)", "messageId": "m-\(room)"],
            status: [202]
        )
        return try #require(accepted["notificationId"] as? String)
    }

    /// Runs `body` for 0..<count, `width` at a time.
    static func inParallel(
        _ count: Int,
        width: Int,
        _ body: @escaping @Sendable (Int) async throws -> Void
    )
        async throws
    {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<width {
                group.addTask { for index in stride(from: lane, to: count, by: width) { try await body(index) } }
            }
            try await group.waitForAll()
        }
    }

    /// One push the mock accepted: its token, its delivery (the apns-id, one per device and notification),
    /// its `authorization` (the provider token) and its `apns-collapse-id`, if any.
    struct Push {
        var token: String
        var delivery: String
        var authorization: String
        var collapseId: String?
    }

    /// The accepted pushes of the mock's record file (JSON lines; a line still being written is skipped).
    /// How many pushes the mock recorded so far, by its lines: cheap enough to poll while a fan-out runs
    /// (parsing them all would let thousands more go out between two polls).
    static func recordedLines(_ file: URL) -> Int {
        guard let data = try? Data(contentsOf: file) else { return 0 }
        return data.reduce(0) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
    }

    static func recorded(_ file: URL) -> [Push] {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line -> Push? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                object["status"] as? Int == 200, let headers = object["headers"] as? [[String]]
            else { return nil }
            func header(_ name: String) -> String? { headers.first { $0.first == name }?.last }
            guard let path = header(":path"), let id = header("apns-id"), let authorization = header("authorization")
            else { return nil }
            return Push(
                token: String(path.dropFirst("/3/device/".count)),
                delivery: id,
                authorization: authorization,
                collapseId: header("apns-collapse-id")
            )
        }
    }
}

extension PostgresStore {
    /// Registers `tokens` (lowercase hex) for app `app` as the API would: token `i` for user
    /// `user<from + i>`, sandbox, member of `crowd` and of `r<(from + i) % rooms>`; one statement per table.
    func seedDevices(app: String, tokens: [String], from: Int, rooms: Int) throws {
        let list = try StoredValues.jsonList(tokens)
        try db.transaction {
            try db.query(
                """
                INSERT INTO devices (app_id, token, user_id, environment, created_at, updated_at)
                SELECT $1, t.token, 'user' || (t.n - 1 + $3), 'sandbox', $4, $4
                FROM jsonb_array_elements_text($2::jsonb) WITH ORDINALITY AS t (token, n)
                """,
                app,
                list,
                from,
                Date()
            )
            try db.query(
                """
                INSERT INTO room_members (app_id, room_id, user_id, joined_at)
                SELECT $1, r.room, 'user' || (t.n - 1 + $3), $5
                FROM jsonb_array_elements_text($2::jsonb) WITH ORDINALITY AS t (token, n),
                    LATERAL (VALUES ('crowd'), ('r' || ((t.n - 1 + $3) % $4))) AS r (room)
                """,
                app,
                list,
                from,
                rooms,
                Date()
            )
        }
    }
}
