import Foundation
import RelayCore
import RelayKafka
import RelayTestSupport
import Testing

@testable import RelayPostgres

/// Issue 21 at the process level: two `push-relay serve` processes on one PostgreSQL database consume one
/// app's Ditto topic (4 partitions, on a `push-relay mock-kafka` process) as one consumer group and push to
/// one `push-relay mock-apns` process. One relay is SIGKILLed while messages stream in: the survivor takes
/// all four partitions, every message reaches every recipient device, and what is pushed twice is at most
/// what the killed relay had in flight (its `delivery.concurrency`): a Kafka batch it applied but did not
/// commit is read again and deduplicated by the mirror, so it pushes nothing twice.
@Suite struct DittoKafkaGroupProcessTests {
    static let topic = "ditto.chat"
    static let partitions = 4
    static let rooms = (0..<8).map { "room-\($0)" }
    static let users = (0..<6).map { "user-\($0)" }
    static let devicesPerUser = 2
    /// Messages produced before the kill (paced, so the kill falls while they stream in), then after it.
    static let messagesBefore = 200
    static let messagesAfter = 200
    typealias Relays = SeveralRelaysProcessTests

    @Test func twoRelaysInOneGroupPushEveryMessageWhenOneIsKilled() async throws {
        let began = ContinuousClock.now
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let databaseURL = try await PostgresCluster.shared().newDatabaseURL()
        let kafka = try RelayProcess(
            ["mock-kafka", "--topic", "\(Self.topic):\(Self.partitions)"],
            outputIn: directory.url,
            name: "mock-kafka"
        )
        let bootstrap = String(try await kafka.line(startingWith: "mock Kafka listening on ").prefix { $0 != " " })
        let record = directory.url.appendingPathComponent("mock-record.jsonl")
        // Every answer comes after 40 ms, so pushes are in flight when the relay is killed.
        let script = directory.url.appendingPathComponent("mock-script.json")
        try Data(#"{"devices": [{"token": "*", "delayMs": 40}]}"#.utf8).write(to: script)
        let mock = try RelayProcess(
            [
                "mock-apns", "--port", "0", "--quiet", "--record", record.path, "--script", script.path,
                "--topics", Relays.topic,
                "--key", "\(Relays.keyId):\(Relays.teamId):fixtures/keys/AuthKey_\(Relays.keyId).pub.pem",
            ],
            outputIn: directory.url,
            name: "mock"
        )
        let mockAddress = try await mock.line(startingWith: "mock APNs listening on ")
        let mockPort = try #require(URL(string: String(mockAddress.prefix { $0 != " " }))?.port)
        let (apiKey, apiKeyHash) = try await Relays.newAPIKey(in: directory)
        let ditto: [String: Any] = [
            "kafka": ["bootstrapServers": bootstrap, "topics": [Self.topic], "sessionTimeoutMilliseconds": 6_000],
            // Messages stay new for the whole test however slow the machine.
            "maxMessageAgeSeconds": 3_600,
        ]
        let apps = Relays.apps(mockPort: mockPort, apiKeyHash: apiKeyHash, ditto: ditto)
        let relays = try (0..<2).map { index in
            try RelayProcess(
                ["serve", "--port", "0", "--log-level", "info"],
                environment: Relays.environment(index: index, database: databaseURL, apps: apps, directory: directory),
                outputIn: directory.url,
                name: "relay\(index)"
            )
        }
        var clients: [RelayClient] = []
        for relay in relays { clients.append(RelayClient(port: try await relay.listeningPort(), apiKey: apiKey)) }

        // Devices are registered with the relays; users and rooms come from Ditto.
        var devices: [String: [String]] = [:]
        for (index, user) in Self.users.enumerated() {
            for device in 0..<Self.devicesPerUser {
                let token = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
                _ = try await clients[(index + device) % 2].object(
                    "POST",
                    "/v1/devices",
                    json: ["token": token, "userId": user],
                    status: [201]
                )
                devices[user, default: []].append(token)
            }
        }
        let deadline = ContinuousClock.now + .seconds(240)
        for relay in relays {
            while try Self.heldPartitions(relay)?.count != Self.partitions / 2 {
                try #require(ContinuousClock.now < deadline, "the group did not split the partitions:\n\(relay.stderr)")
                try await Task.sleep(for: .milliseconds(50))
            }
        }

        // The producer is released (its connections closed) before the mock Kafka stops.
        var expected: Set<String> = []
        var killedAt: Int?
        var sentAtKill = 0
        do {
            let producer = try KafkaProducer(settings: KafkaSettings([("bootstrap.servers", bootstrap)]))
            var txn = 0
            for room in Self.rooms {
                txn += 1
                try Self.send(Self.upsert(txn, "rooms", ["_id": room, "name": room]), key: room, by: producer)
            }
            for (index, user) in Self.users.enumerated() {
                txn += 1
                let subscribed = Self.rooms.indices.filter { Self.subscribes(index, $0) }
                let subscriptions = Dictionary(
                    uniqueKeysWithValues: subscribed.map { (Self.rooms[$0], "2020-01-01T00:00:00Z") }
                )
                try Self.send(
                    Self.upsert(txn, "users", ["_id": user, "name": user, "subscriptions": subscriptions]),
                    key: user,
                    by: producer
                )
            }
            try producer.flush()
            let store = try PostgresStore(url: databaseURL, logger: .disabled())
            while try await store.mirroredDocuments(appId: "multi") < Self.rooms.count + Self.users.count {
                try #require(ContinuousClock.now < deadline, "the relays did not mirror the users and rooms")
                try await Task.sleep(for: .milliseconds(50))
            }

            // Messages keyed by room, each room on partition `room % 4`, so all four partitions carry some.
            func sendMessage(_ number: Int) throws {
                let room = number % Self.rooms.count
                let sender = Self.users[number % Self.users.count]
                let id = UUID().uuidString
                txn += 1
                let message: [String: Any] = [
                    "_id": id, "roomId": Self.rooms[room], "userId": sender, "text": "message \(number)",
                    "createdOn": Timestamp.rfc3339(Date()),
                ]
                try Self.send(
                    Self.upsert(txn, "messages", message),
                    key: Self.rooms[room],
                    partition: Int32(room % Self.partitions),
                    by: producer
                )
                for (index, user) in Self.users.enumerated() where user != sender && Self.subscribes(index, room) {
                    for token in devices[user] ?? [] { expected.insert(Self.pair("dittochat-msg-" + id, token)) }
                }
            }
            // Relay 0 is killed once pushes are going out, while the first messages may still be streaming in.
            for number in 0..<Self.messagesBefore {
                try sendMessage(number)
                guard number % 5 == 4 else { continue }
                try producer.flush()
                if killedAt == nil, Relays.recorded(record).count >= 100 {
                    relays[0].signal(SIGKILL)
                    killedAt = number + 1
                }
                try await Task.sleep(for: .milliseconds(25))
            }
            while killedAt == nil {
                try #require(ContinuousClock.now < deadline, "no pushes before the kill")
                if Relays.recorded(record).count >= 100 {
                    relays[0].signal(SIGKILL)
                    killedAt = Self.messagesBefore
                }
                try await Task.sleep(for: .milliseconds(5))
            }
            let killed = try await relays[0].exitStatus()
            #expect(!killed.exited && killed.status == SIGKILL, "\(killed)")
            sentAtKill = Relays.recorded(record).count
            for number in Self.messagesBefore..<(Self.messagesBefore + Self.messagesAfter) { try sendMessage(number) }
            try producer.flush()
        }

        // The survivor takes relay 0's partitions once its session times out, and the rest of its leases.
        var pushes = Relays.recorded(record)
        while !expected.isSubset(of: Set(pushes.map(Self.pair))) {
            let missing = expected.subtracting(pushes.map(Self.pair)).count
            try #require(ContinuousClock.now < deadline, "\(missing) of \(expected.count) pushes never sent")
            try await Task.sleep(for: .milliseconds(100))
            pushes = Relays.recorded(record)
        }
        let survivorHeld = try Self.heldPartitions(relays[1])
        relays[1].signal(SIGTERM)
        #expect(try await relays[1].exitStatus().status == 0)
        for process in [mock, kafka] { process.signal(SIGTERM) }
        for process in [mock, kafka] { _ = try await process.exitStatus() }
        pushes = Relays.recorded(record)

        let pairs = pushes.map(Self.pair)
        #expect(Set(pairs) == expected, "\(Set(pairs).subtracting(expected).count) pushes nobody should have had")
        let duplicates = pairs.count - Set(pairs).count
        #expect(
            duplicates <= Relays.killedConcurrency,
            "\(duplicates) pushes sent twice (killed relay's window \(Relays.killedConcurrency))"
        )
        #expect(survivorHeld?.count == Self.partitions, "survivor holds \(survivorHeld ?? [])")
        let joined = try ServeLogTests.objects(relays[1].stderr).first {
            $0["msg"] as? String == "joining the Kafka group"
        }
        #expect(joined?["kafka.group"] as? String == "push-relay-multi", "\(relays[1].stderr)")
        print(
            "Kafka group: \(pushes.count) pushes for \(expected.count) (message, device) pairs, "
                + "\(duplicates) sent twice (killed relay's window \(Relays.killedConcurrency)), killed after "
                + "\(killedAt ?? 0) messages produced and \(sentAtKill) pushes, wall time \(ContinuousClock.now - began)"
        )
    }

    /// Whether user `user` is subscribed to room `room` (about two rooms in three).
    static func subscribes(_ user: Int, _ room: Int) -> Bool { (user + room) % 3 != 0 }

    static func pair(_ collapseId: String, _ token: String) -> String { "\(collapseId) \(token)" }

    static func pair(_ push: Relays.Push) -> String { pair(push.collapseId ?? "", push.token) }

    /// A Ditto `documentChanged` upsert event of `document` in `collection`.
    static func upsert(_ txn: Int, _ collection: String, _ document: [String: Any]) -> [String: Any] {
        [
            "txnId": txn, "type": "documentChanged", "collection": collection,
            "change": ["method": "upsert", "oldValue": NSNull(), "newValue": document],
        ]
    }

    static func send(
        _ event: [String: Any],
        key: String,
        partition: Int32? = nil,
        by producer: KafkaProducer
    ) throws {
        try producer.send(
            topic: topic,
            partition: partition,
            key: Array(key.utf8),
            payload: Array(try JSONSerialization.data(withJSONObject: event))
        )
    }

    /// The partitions `relay` last logged it holds (`holding Kafka partitions`); nil before any. Reads the
    /// log of a running process: a line still being written is skipped.
    static func heldPartitions(_ relay: RelayProcess) throws -> [String]? {
        let lines = relay.stderr.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        guard let held = lines.last(where: { $0["msg"] as? String == "holding Kafka partitions" }) else { return nil }
        let list = try #require(held["kafka.partitions"] as? String, "\(held)")
        return list.split(separator: ",").map(String.init)
    }
}

extension PostgresStore {
    /// How many Ditto documents of `appId` the mirror has recorded (tests).
    func mirroredDocuments(appId: String) throws -> Int {
        try db.query("SELECT count(*) FROM ditto_documents WHERE app_id = $1", appId)[0].int(0)
    }
}
