import Foundation

extension Configuration: CustomStringConvertible {
    /// The configuration as pretty JSON with secrets replaced by `"<redacted>"` (certificate passwords,
    /// webhook secrets);
    /// key hashes and file paths are shown, key material never is (it lives in files).
    public var redactedJSON: String {
        var copy = self
        for index in copy.apps.indices {
            if copy.apps[index].credentials?.certificatePassword != nil {
                copy.apps[index].credentials?.certificatePassword = "<redacted>"
            }
            if copy.apps[index].webhookSecret != nil { copy.apps[index].webhookSecret = "<redacted>" }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(copy)) ?? Data(), as: UTF8.self)
    }

    public var description: String { redactedJSON }
}
