import Foundation
import RelayCLI
import RelayCore
import RelayStore

/// `relay-bench seed`: registers `--devices` devices, one user each, all members of one room, and one more
/// device alone in the room ``warmUpRoom``, straight through the store into the SQLite file `--db`
/// (registration speed is not what the bench measures).
enum SeedCommand {
    static let usage = "relay-bench seed --devices N --db FILE [--room ROOM]"
    static let appId = "bench"
    static let room = "room-1"
    static let warmUpRoom = "warm-up"

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let devices = try arguments.positiveInteger("devices", default: 1000)
        let path = try arguments.required("db")
        let room = arguments.value("room", default: Self.room)
        let store = try SQLiteStore(path: path, logger: .disabled())
        let started = ContinuousClock.now
        let now = Date()
        for index in 0..<devices {
            _ = try await store.upsertDevice(
                appId: appId,
                token: .apns(try token(index)),
                userId: "user-\(index)",
                environment: .production,
                rooms: [room],
                at: now
            )
        }
        _ = try await store.upsertDevice(
            appId: appId,
            token: .apns(try token(devices)),
            userId: "warm-up-user",
            environment: .production,
            rooms: [warmUpRoom],
            at: now
        )
        let elapsed = ContinuousClock.now - started
        print(#"{"devices":\#(devices),"seconds":\#(elapsed.timeInterval)}"#)
        return 0
    }

    /// A distinct 32-byte token per index: four 64-bit words of a multiplicative hash, hex.
    static func token(_ index: Int) throws -> DeviceToken {
        var words: [String] = []
        for word in 0..<4 {
            let value = UInt64(truncatingIfNeeded: index &+ 1) &* (0x9E37_79B9_7F4A_7C15 &+ UInt64(word) &* 2)
            words.append(String(format: "%016llx", value ^ (UInt64(word) << 60)))
        }
        return try DeviceToken(parsing: words.joined())
    }
}
