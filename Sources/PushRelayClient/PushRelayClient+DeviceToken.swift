import Foundation

extension PushRelayClient {
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// The APNs device token as the chat SDK's `registerDeviceToken(_:)` stores it: two lowercase hex digits
    /// per byte, in order, nothing between (the SDK formats each byte with `%02.2hhx`). Never the token's
    /// `description`, whose form changed in iOS 13.
    public static func hexString(deviceToken: Data) -> String {
        var digits: [UInt8] = []
        digits.reserveCapacity(deviceToken.count * 2)
        for byte in deviceToken {
            digits.append(hexDigits[Int(byte >> 4)])
            digits.append(hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: digits, as: UTF8.self)
    }
}
