import Foundation
import RelayCLI
import RelayCore
import RelaySQLite
import RelayStore

/// `relay-bench seed`: registers `--devices` devices of `--platform` (ios: APNs device tokens, android: FCM
/// registration tokens, web: subscriptions of the mock push service at `--url`, made in its subscriptions
/// directory `--subscriptions`), one user each, all members of one room, and one more device alone in the
/// room ``warmUpRoom``, straight through the store into the SQLite file `--db` (registration speed is not what
/// the bench measures).
enum SeedCommand {
    static let usage = """
        relay-bench seed --devices N --db FILE [--room ROOM] [--platform ios|android]
        relay-bench seed --platform web --url https://127.0.0.1:PORT --subscriptions DIR --devices N --db FILE
        """
    static let appId = "bench"
    static let room = "room-1"
    static let warmUpRoom = "warm-up"

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let devices = try arguments.positiveInteger("devices", default: 1000)
        let path = try arguments.required("db")
        let room = arguments.value("room", default: Self.room)
        let platform = try arguments.platform()
        let store = try SQLiteStore(path: path, logger: .disabled())
        let started = ContinuousClock.now
        if platform == .web {
            let subscriptions = try WebBenchSubscriptions.make(
                count: devices + 1,
                url: try arguments.required("url"),
                directory: try arguments.required("subscriptions")
            )
            try await seed(store, devices: devices, room: room) { try WebBenchSubscriptions.token(subscriptions[$0]) }
        } else {
            try await seed(store, devices: devices, room: room, platform: platform)
        }
        let elapsed = ContinuousClock.now - started
        print(#"{"devices":\#(devices),"platform":"\#(platform.rawValue)","seconds":\#(elapsed.timeInterval)}"#)
        return 0
    }

    /// Registers `devices` devices of `platform` in `room` and the warm-up device in ``warmUpRoom``,
    /// `concurrency` registrations at a time.
    static func seed(
        _ store: some Store,
        devices: Int,
        room: String = room,
        platform: Platform,
        concurrency: Int = 1
    ) async throws {
        try await seed(store, devices: devices, room: room, concurrency: concurrency) {
            try token($0, platform: platform)
        }
    }

    /// Registers `devices` devices in `room`, device `i` with `token(i)`, and the warm-up device
    /// (`token(devices)`) in ``warmUpRoom``. `concurrency` registrations are in flight at a time, each its
    /// own transaction: a pool of PostgreSQL connections (``RelayStore/StorePool``) runs them side by side
    /// instead of waiting on one connection's round trips; a SQLite store runs them one after another.
    static func seed(
        _ store: some Store,
        devices: Int,
        room: String,
        concurrency: Int = 1,
        token: (Int) throws -> PushToken
    ) async throws {
        let tokens = try (0...devices).map(token)
        let now = Date()
        let lanes = max(1, concurrency)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<lanes {
                group.addTask {
                    for index in stride(from: lane, to: devices, by: lanes) {
                        _ = try await store.upsertDevice(
                            appId: appId,
                            token: tokens[index],
                            userId: "user-\(index)",
                            rooms: [room],
                            at: now
                        )
                    }
                }
            }
            try await group.waitForAll()
        }
        _ = try await store.upsertDevice(
            appId: appId,
            token: tokens[devices],
            userId: "warm-up-user",
            rooms: [warmUpRoom],
            at: now
        )
    }

    /// The distinct token of device `index` on `platform`.
    static func token(_ index: Int, platform: Platform) throws -> PushToken {
        if platform == .android { return .fcm(try fcmToken(index)) }
        return .apns(try token(index))
    }

    /// A distinct 32-byte token per index: four 64-bit words of a multiplicative hash, hex.
    static func token(_ index: Int) throws -> DeviceToken {
        try DeviceToken(parsing: hashHex(index))
    }

    /// A distinct FCM registration token per index, of a real one's shape and length (157 characters):
    /// an instance id, `:APA91b`, and a body. The 64 hex digits of ``hashHex(_:)`` in the body make it
    /// distinct.
    static func fcmToken(_ index: Int) throws -> FCMRegistrationToken {
        let hex = hashHex(index)
        return try FCMRegistrationToken(parsing: "\(hex.suffix(22)):APA91b\(hex)\(String(hex.reversed()))")
    }

    /// Four 64-bit words of a multiplicative hash of `index` (an odd multiplier: distinct for distinct
    /// indexes), as 64 lowercase hex digits.
    private static func hashHex(_ index: Int) -> String {
        var words: [String] = []
        for word in 0..<4 {
            let value = UInt64(truncatingIfNeeded: index &+ 1) &* (0x9E37_79B9_7F4A_7C15 &+ UInt64(word) &* 2)
            words.append(String(format: "%016llx", value ^ (UInt64(word) << 60)))
        }
        return words.joined()
    }
}
