import Foundation
import RelayCLI
import RelayCore
import RelayCrypto
import WebPushCore

/// `push-relay keys new`: a new API key (32 random bytes, hex) and the SHA-256 the configuration stores.
/// `push-relay keys vapid --out FILE`: a new VAPID key pair (P-256) for `apps[].webPush.vapidKeyFile`, and its
/// public key in the base64url form a page gives `pushManager.subscribe` as `applicationServerKey`.
/// `push-relay keys user-token --key FILE --user ID`: a user token signed by a P-256 key, for development.
enum KeysCommand {
    static let usage = """
        usage: push-relay keys new
                 prints a new API key and its SHA-256 for apps[].apiKeySHA256
               push-relay keys vapid --out FILE
                 writes a new VAPID private key (PEM, P-256, mode 0600) to FILE for apps[].webPush.vapidKeyFile
                 and prints its public key (base64url) for pushManager.subscribe's applicationServerKey
               push-relay keys user-token --key FILE --user ID [--hours N]
                 prints a user token (an ES256 JWT: sub ID, expiring in N hours, default 24, at most 720)
                 signed by the P-256 private key in FILE, for development: `serve` on its defaults prints the
                 command with its development app's key
        """

    static func run(_ words: [String]) throws -> Int32 {
        let arguments = try Arguments(
            words,
            switches: ["help"],
            options: ["out", "key", "user", "hours"],
            positional: 1
        )
        if arguments.flag("help") {
            say(usage)
            return 0
        }
        let given = { (names: [String]) in names.filter { arguments.value($0) != nil } }
        switch arguments.positional.first {
        case "vapid":
            if let other = given(["key", "user", "hours"]).first {
                throw Arguments.Problem(description: "--\(other) is for keys user-token\n\(usage)")
            }
            return try vapid(out: arguments.value("out"))
        case "user-token":
            if arguments.value("out") != nil {
                throw Arguments.Problem(description: "--out is for keys vapid\n\(usage)")
            }
            return try userToken(arguments)
        default:
            // Any word but these three, or none, names all three.
            if arguments.positional.first != "new" {
                _ = try arguments.subcommand(of: ["new", "vapid", "user-token"], usage: usage)
            }
            if let other = given(["out", "key", "user", "hours"]).first {
                throw Arguments.Problem(description: "--\(other) is not for keys new\n\(usage)")
            }
            let key = try APIKey.generate()
            say("API key: \(key)")
            say("apiKeySHA256: \(APIKey.hash(key))")
            return 0
        }
    }

    /// Writes a new VAPID key to `out` (refusing to replace a file: the subscriptions made with the old public
    /// key would stop working) and prints the public key.
    private static func vapid(out: String?) throws -> Int32 {
        guard let out else { throw Arguments.Problem(description: "keys vapid needs --out FILE\n\(usage)") }
        var status = stat()
        guard lstat(out, &status) != 0 else {
            throw Arguments.Problem(
                description: "\(out) exists: a new key would end every subscription made with the old one"
            )
        }
        let key = try VAPIDKey.generate()
        try SecretFile.write(Data(key.privateKeyPEM.utf8), to: out, replacing: false)
        say("VAPID private key written to \(out) (apps[].webPush.vapidKeyFile)")
        say("applicationServerKey: \(key.publicKeyBase64URL)")
        return 0
    }

    /// Prints a user token signed by the key in `--key`: header `{"alg": "ES256", "typ": "JWT"}`, claims
    /// `sub`, `iat` and `exp`.
    private static func userToken(_ arguments: Arguments) throws -> Int32 {
        guard let file = arguments.value("key"), let user = arguments.value("user") else {
            throw Arguments.Problem(description: "keys user-token needs --key FILE and --user ID\n\(usage)")
        }
        let hours = try arguments.positiveInteger("hours", default: 24)
        guard hours <= 720 else { throw Arguments.Problem(description: "--hours must be at most 720") }
        // The relay takes a token's user id by the API's id rule: a token it would refuse is not made.
        if let problem = ChatMessage.idProblem(user) { throw Arguments.Problem(description: "--user \(problem)") }
        if let problem = FileManager.default.readProblem(atPath: file) {
            throw Arguments.Problem(description: "--key: \(problem)")
        }
        let pem: String
        do { pem = try String(contentsOfFile: file, encoding: .utf8) } catch {
            throw Arguments.Problem(description: "--key \(file): not text")
        }
        let key: ES256Key
        do { key = try ES256Key(privateKeyPEM: pem) } catch {
            throw Arguments.Problem(description: "--key \(file): not a P-256 private key (PEM)")
        }
        struct Header: Encodable { var alg = "ES256", typ = "JWT" }
        struct Claims: Encodable { var sub: String, iat: Int, exp: Int }
        let now = Int(Date().timeIntervalSince1970)
        let claims = Claims(sub: user, iat: now, exp: now + hours * 3600)
        let jws = try CompactJWS.sign(header: Header(), payload: claims) { (input) throws(CryptoError) in
            try key.sign(input)
        }
        say(jws.compact)
        return 0
    }
}
