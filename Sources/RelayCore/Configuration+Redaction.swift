import Foundation

extension Configuration: CustomStringConvertible {
    /// The configuration as pretty JSON with secrets replaced by `"<redacted>"` (certificate passwords,
    /// webhook secrets, Ditto's API key), the userinfo and queries of URLs (feedback, JWKS, auth webhook,
    /// Ditto's HTTP API, the PostgreSQL URI) by `redacted` (``redactedURL(_:)``), and a libpq `key=value`
    /// string's password; key hashes and file paths (the FCM service account file and
    /// `storage.postgres.passwordFile` too) are shown, key material never is (it lives in files).
    public var redactedJSON: String {
        var copy = self
        for index in copy.apps.indices {
            if copy.apps[index].apns.credentials?.certificatePassword != nil {
                copy.apps[index].apns.credentials?.certificatePassword = "<redacted>"
            }
            if copy.apps[index].webhookSecret != nil { copy.apps[index].webhookSecret = "<redacted>" }
            copy.apps[index].previousWebhookSecrets = copy.apps[index].previousWebhookSecrets.map { _ in "<redacted>" }
            if copy.apps[index].ditto?.kafka?.p12Password != nil {
                copy.apps[index].ditto?.kafka?.p12Password = "<redacted>"
            }
            if let api = copy.apps[index].ditto?.httpAPI {
                copy.apps[index].ditto?.httpAPI?.apiKey = "<redacted>"
                copy.apps[index].ditto?.httpAPI?.url = Self.redactedURL(api.url)
            }
            if let url = copy.apps[index].feedbackURL { copy.apps[index].feedbackURL = Self.redactedURL(url) }
            if let url = copy.apps[index].userAuth?.jwt?.jwksURL {
                copy.apps[index].userAuth?.jwt?.jwksURL = Self.redactedURL(url)
            }
            if let url = copy.apps[index].userAuth?.dittoAuthWebhook?.url {
                copy.apps[index].userAuth?.dittoAuthWebhook?.url = Self.redactedURL(url)
            }
        }
        if let url = copy.storage.postgres.url { copy.storage.postgres.url = Self.withoutPassword(url) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(copy)) ?? Data(), as: UTF8.self)
    }

    public var description: String { redactedJSON }

    /// A connection string without its password: a URI as ``redactedURL(_:)`` shows it, a libpq
    /// `key=value` string with its `password` value replaced.
    public static func withoutPassword(_ url: String) -> String {
        guard url.contains("://") else {
            return passwordValue.stringByReplacingMatches(
                in: url,
                range: NSRange(url.startIndex..., in: url),
                withTemplate: "$1redacted"
            )
        }
        return redactedURL(url)
    }

    /// The `password` value of a libpq `key=value` string: quoted (with `\'` and `\\` escapes) or up to
    /// the next space (https://www.postgresql.org/docs/current/libpq-connect.html#LIBPQ-CONNSTRING-KEYWORD-VALUE).
    private static let passwordValue = try! NSRegularExpression(
        pattern: #"(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'?|\S*)"#,
        options: [.caseInsensitive]
    )

    /// `url` as it may be printed: its whole userinfo (user and password) becomes `redacted` and its query,
    /// where tokens and keys are often passed, `redacted` too (`postgresql://redacted@db/relay?redacted`).
    ///
    /// Read by hand rather than by URLComponents, which refuses a password holding an unencoded `@` or `/`:
    /// the userinfo ends at the LAST `@` after `://`, so whatever the password holds is never shown. When a
    /// `/` and then a `?` come before that `@`, it may be a query's (`…/relay?password=a@b`): then nothing
    /// after `://` is shown. Every URL the relay prints goes through here.
    public static func redactedURL(_ url: String) -> String {
        guard let scheme = url.range(of: "://") else { return url }
        var rest = url[scheme.upperBound...]
        var shown = String(url[..<scheme.upperBound])
        if let at = rest.lastIndex(of: "@") {
            let before = rest[..<at]
            if let slash = before.firstIndex(of: "/"), before[slash...].contains("?") { return shown + "redacted" }
            shown += "redacted@"
            rest = rest[rest.index(after: at)...]
        }
        if let query = rest.firstIndex(of: "?") {
            shown += rest[..<query] + "?redacted"
        } else {
            shown += rest
        }
        return shown
    }
}
