import Foundation
import RelayCore

/// A due delivery as a claim reads it, with its device's registration (NULL device columns: the device was
/// deleted, or registered again for another user): what both engines' claims read, decoded in one place.
package struct ClaimedDelivery {
    package var id: Int64
    package var token: String
    package var attempts: Int
    /// The user the delivery is for.
    package var userId: String
    /// The device's state; nil when there is no device for the delivery.
    package var deviceState: String?
    package var retiredReason: String?
    /// The device's ``RelayCore/PushToken/storedScope`` (its `environment` column).
    package var environment: String
    /// When the device registered last (its `updated_at`).
    package var registeredAt: Date
    package var platform: String
    /// The device's ``RelayCore/PushToken/address``.
    package var address: String?

    /// The columns ``init(row:)`` reads, in its order: of the `deliveries` row named `delivery`, then of
    /// its device's row named `device`.
    package static func columns(delivery: String, device: String) -> String {
        StoredColumns.list(["id", "token", "attempts", "user_id"], of: delivery) + ", "
            + StoredColumns.list(
                ["state", "retired_reason", "environment", "updated_at", "platform", "address"],
                of: device
            )
    }

    /// The number of columns ``columns(delivery:device:)`` names: a claim's own columns follow them.
    package static let columnCount = 10

    /// A due delivery from a row that starts with ``columns(delivery:device:)``.
    package init(row: some StoredRow) throws {
        id = try row.int64(0)
        token = row.string(1)
        attempts = try row.int(2)
        userId = row.string(3)
        deviceState = row.optionalString(4)
        retiredReason = row.optionalString(5)
        environment = row.string(6)
        registeredAt = try row.date(7)
        platform = row.string(8)
        address = row.optionalString(9)
    }

    /// ``StoredValues/undeliverable(deviceState:retiredReason:unlinked:)`` for this delivery.
    package func undeliverable(
        unlinked: @autoclosure () throws -> Bool
    ) rethrows -> (status: DeliveryStatus, reason: String)? {
        try StoredValues.undeliverable(
            deviceState: deviceState,
            retiredReason: retiredReason,
            unlinked: try unlinked()
        )
    }

    /// The job of a delivery whose device can take it, for `appId` with `content`.
    /// - Throws: ``StoreError`` `.invalidData` for a token (with its environment) that is none.
    package func job(appId: String, content: NotificationContent) throws -> DeliveryJob {
        DeliveryJob(
            deliveryId: id,
            appId: appId,
            token: try StoredValues.token(token, platform: platform, address: address, scope: environment),
            attempts: attempts,
            deviceRegisteredAt: registeredAt,
            content: content
        )
    }
}
