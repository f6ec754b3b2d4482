import Foundation

/// The push id of one delivery (the `apns-id` of an iOS delivery, the `push.id` of every log line), derived
/// rather than stored: the notification's random (version 4) UUID with its last 48 bits XORed with the
/// delivery's row id. The same for every resend of a delivery, distinct between the deliveries of a
/// notification, canonical and still a valid version-4 UUID (the version and variant bits are untouched;
/// RFC 9562 section 5.4). Deriving it keeps 100,000-device fan-outs from generating and storing 100,000
/// UUIDs inside the webhook's transaction.
public enum PushIdentifier {
    public static func forDelivery(_ deliveryId: Int64, of notification: UUID) -> UUID {
        var bytes = notification.uuid
        let id = UInt64(bitPattern: deliveryId)
        withUnsafeMutableBytes(of: &bytes) { raw in
            for index in 0..<6 { raw[15 - index] ^= UInt8(truncatingIfNeeded: id >> (8 * UInt64(index))) }
        }
        return UUID(uuid: bytes)
    }
}
