import Foundation

extension Configuration: CustomStringConvertible {
    /// The configuration as pretty JSON with secrets replaced by `"<redacted>"` (certificate passwords,
    /// webhook secrets, Ditto's API key), the queries of URLs (feedback, JWKS, auth webhook) by `redacted`, and the PostgreSQL
    /// URI's password and query;
    /// key hashes and file paths (the FCM service account file too) are shown, key material never is (it lives
    /// in files).
    public var redactedJSON: String {
        var copy = self
        for index in copy.apps.indices {
            if copy.apps[index].apns.credentials?.certificatePassword != nil {
                copy.apps[index].apns.credentials?.certificatePassword = "<redacted>"
            }
            if copy.apps[index].webhookSecret != nil { copy.apps[index].webhookSecret = "<redacted>" }
            if copy.apps[index].ditto?.kafka?.p12Password != nil {
                copy.apps[index].ditto?.kafka?.p12Password = "<redacted>"
            }
            if copy.apps[index].ditto?.httpAPI != nil { copy.apps[index].ditto?.httpAPI?.apiKey = "<redacted>" }
            if let url = copy.apps[index].feedbackURL { copy.apps[index].feedbackURL = Self.withoutQuery(url) }
            if let url = copy.apps[index].userAuth?.jwt?.jwksURL {
                copy.apps[index].userAuth?.jwt?.jwksURL = Self.withoutQuery(url)
            }
            if let url = copy.apps[index].userAuth?.dittoAuthWebhook?.url {
                copy.apps[index].userAuth?.dittoAuthWebhook?.url = Self.withoutQuery(url)
            }
        }
        if let url = copy.storage.postgres.url { copy.storage.postgres.url = Self.withoutPassword(url) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(copy)) ?? Data(), as: UTF8.self)
    }

    public var description: String { redactedJSON }

    /// A connection string without its password: a URI's in the user part or the query (`?password=`), a
    /// libpq `key=value` string's `password` value.
    public static func withoutPassword(_ url: String) -> String {
        guard url.contains("://") else {
            return passwordValue.stringByReplacingMatches(
                in: url,
                range: NSRange(url.startIndex..., in: url),
                withTemplate: "$1redacted"
            )
        }
        guard var components = URLComponents(string: url) else { return "<redacted>" }
        if components.password != nil { components.password = "redacted" }
        if components.query != nil { return withoutQuery(components.string ?? "<redacted>") }
        return components.string ?? "<redacted>"
    }

    /// The `password` value of a libpq `key=value` string: quoted (with `\'` and `\\` escapes) or up to
    /// the next space (https://www.postgresql.org/docs/current/libpq-connect.html#LIBPQ-CONNSTRING-KEYWORD-VALUE).
    private static let passwordValue = try! NSRegularExpression(
        pattern: #"(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'?|\S*)"#,
        options: [.caseInsensitive]
    )

    /// `url` with its query, where tokens and keys are often passed, replaced by `<redacted>`.
    static func withoutQuery(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.query != nil else { return url }
        components.percentEncodedQuery = "redacted"
        return components.string ?? "<redacted>"
    }
}
