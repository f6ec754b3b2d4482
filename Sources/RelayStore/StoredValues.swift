import Foundation
import RelayCore

/// Values read back from the columns every store keeps them as (tokens with their platform, UUIDs,
/// notification levels), a chat message's content columns, and the claim's rule for a delivery whose device can no longer take it: what both stores
/// share, so neither spells it differently.
package enum StoredValues {
    /// A stored token with its stored platform, address (``RelayCore/PushToken/address``) and, where the
    /// device's row is read, its scope (the `environment` column, ``RelayCore/PushToken/storedScope``) and
    /// the identities it is unlinked from (the `unlinked_topics` column's JSON array of strings as text,
    /// ``RelayCore/PushToken/unlinked``).
    /// - Throws: ``StoreError`` `.invalidData` when any is not valid.
    package static func token(
        _ text: String,
        platform: String,
        address: String? = nil,
        scope: String? = nil,
        unlinked: String? = nil
    ) throws -> PushToken {
        guard let platform = Platform(rawValue: platform) else {
            throw StoreError(code: .invalidData, message: "stored platform '\(platform)' is unknown")
        }
        let identities: [String]
        do { identities = try unlinked.map(Self.unlinked) ?? [] } catch {
            throw StoreError(
                code: .invalidData,
                message: "token …\(PushToken.suffix(of: text)) has invalid unlinked_topics"
            )
        }
        do {
            return try PushToken(stored: text, platform: platform, address: address, scope: scope, unlinked: identities)
        } catch {
            throw StoreError(code: .invalidData, message: "stored token is invalid: \(error.description)")
        }
    }

    /// The identities a token is unlinked from, from the `unlinked_topics` column's JSON array of strings as
    /// text (decoded only when it is not empty).
    /// - Throws: ``StoreError`` `.invalidData` when the text is no such array.
    package static func unlinked(_ text: String) throws -> [String] {
        guard text != "[]" else { return [] }
        do { return try JSONDecoder().decode([String].self, from: Data(text.utf8)) } catch {
            throw StoreError(code: .invalidData, message: "stored unlinked_topics is invalid")
        }
    }

    /// A stored UUID (canonical text).
    /// - Throws: ``StoreError`` `.invalidData` when it is not one.
    package static func uuid(_ text: String) throws -> UUID {
        guard let uuid = UUID(canonical: text) else {
            throw StoreError(code: .invalidData, message: "stored UUID '\(text)' is invalid")
        }
        return uuid
    }

    /// A chat message's `text` column (the text, an image's caption, or a removal's removed message id)
    /// and `image_url` column, as ``RelayCore/ChatMessage/init(row:from:)`` reads them back.
    package static func columns(of content: ChatMessage.Content) -> (text: String?, imageURL: String?) {
        switch content {
        case .text(let text): (text, nil)
        case .image(let caption, let imageURL): (caption, imageURL)
        case .removal(let messageId): (messageId, nil)
        }
    }

    /// A stored notification level.
    /// - Throws: ``StoreError`` `.invalidData` for a value that is none.
    package static func level(_ text: String) throws -> NotifyLevel {
        guard let level = NotifyLevel(rawValue: text) else {
            throw StoreError(code: .invalidData, message: "unknown notification level '\(text)'")
        }
        return level
    }

    /// Why a due delivery can no longer be sent, as its final status and reason; nil when it can. Decided
    /// when it is claimed, so retiring, unlinking or deleting a device never has to find its deliveries.
    /// - Parameters:
    ///   - deviceState: the device's state; nil when the device was deleted or registered again for another
    ///     user.
    ///   - unlinked: whether the device's token is unlinked from the identity the notification is sent as
    ///     (``RelayCore/PushToken/unlinked``); asked only of a live device.
    package static func undeliverable(
        deviceState: String?,
        retiredReason: String?,
        unlinked: @autoclosure () throws -> Bool
    ) rethrows -> (status: DeliveryStatus, reason: String)? {
        guard let deviceState else { return (.failed, "DeviceDeleted") }
        if deviceState == DeviceState.retired.rawValue { return (.retired, retiredReason ?? "Retired") }
        if try unlinked() { return (.failed, PushResult.unlinkedReason) }
        return nil
    }
}

extension StoredValues {
    /// `values` as a JSON array's text: the form in which a statement of either engine takes a list
    /// (SQLite `json_each`, PostgreSQL `jsonb_array_elements_text`).
    public static func jsonList<T: Encodable>(_ values: [T]) throws -> String {
        String(decoding: try JSONEncoder().encode(values), as: UTF8.self)
    }
}
