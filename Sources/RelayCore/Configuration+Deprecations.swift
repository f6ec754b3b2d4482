import Foundation

extension Configuration.App {
    /// The app keys that held APNs settings before they moved under `apps[].apns`. They are still read into
    /// their new places, each with a deprecation notice; a file that sets one and its new key too is refused.
    enum DeprecatedKeys: String, CodingKey, CaseIterable {
        case credentials, mockEndpoint, defaultEnvironment

        /// The new key, under `apns`, as the notice names it.
        var replacement: String {
            switch self {
            case .credentials: "apns.credentials"
            case .mockEndpoint: "apns.endpoints.production and .sandbox"
            case .defaultEnvironment: "apns.defaultEnvironment"
            }
        }

        /// The key under `apns` that is the same setting.
        var nestedKey: Configuration.APNs.CodingKeys {
            switch self {
            case .credentials: .credentials
            case .mockEndpoint: .endpoints
            case .defaultEnvironment: .defaultEnvironment
            }
        }
    }

    /// The app's `apns` object with any deprecated flat keys laid into it; each flat key used is recorded in
    /// the decoder's ``DeprecationNotices`` when it has one.
    /// - Throws: `DecodingError` when a flat key and its nested key are both present (naming both), or a
    ///   value does not decode.
    static func decodeAPNs(from decoder: any Decoder) throws -> Configuration.APNs {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var apns = try container.decodeIfPresent(Configuration.APNs.self, forKey: .apns) ?? Configuration.APNs()
        let flat = try decoder.container(keyedBy: DeprecatedKeys.self)
        let hasObject = try container.contains(.apns) && !container.decodeNil(forKey: .apns)
        let nested =
            hasObject ? try container.nestedContainer(keyedBy: Configuration.APNs.CodingKeys.self, forKey: .apns) : nil
        let at = configurationPath(decoder.codingPath)
        for key in DeprecatedKeys.allCases where flat.contains(key) {
            if nested?.contains(key.nestedKey) == true {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: decoder.codingPath + [key],
                        debugDescription:
                            "also set as \(at).apns.\(key.nestedKey.stringValue); keep only the apns one"
                    )
                )
            }
            switch key {
            case .credentials: apns.credentials = try flat.decodeIfPresent(Configuration.Credentials.self, forKey: key)
            case .mockEndpoint:
                apns.endpoints = .init(both: try flat.decodeIfPresent(Configuration.MockEndpoint.self, forKey: key))
            case .defaultEnvironment:
                apns.defaultEnvironment =
                    try flat.decodeIfPresent(APNsEnvironment.self, forKey: key) ?? apns.defaultEnvironment
            }
            DeprecationNotices.from(decoder)?.append(
                "\(at).\(key.stringValue) is deprecated: use \(at).\(key.replacement)"
            )
        }
        return apns
    }
}
