import Foundation
import RelayCLI
import RelayCore
import RelayCrypto
import WebPushCore

/// `push-relay keys new`: a new API key (32 random bytes, hex) and the SHA-256 the configuration stores.
/// `push-relay keys vapid --out FILE`: a new VAPID key pair (P-256) for `apps[].webPush.vapidKeyFile`, and its
/// public key in the base64url form a page gives `pushManager.subscribe` as `applicationServerKey`.
enum KeysCommand {
    static let usage = """
        usage: push-relay keys new
                 prints a new API key and its SHA-256 for apps[].apiKeySHA256
               push-relay keys vapid --out FILE
                 writes a new VAPID private key (PEM, P-256, mode 0600) to FILE for apps[].webPush.vapidKeyFile
                 and prints its public key (base64url) for pushManager.subscribe's applicationServerKey
        """

    static func run(_ words: [String]) throws -> Int32 {
        let arguments = try Arguments(words, switches: ["help"], options: ["out"], positional: 1)
        if arguments.flag("help") {
            say(usage)
            return 0
        }
        switch arguments.positional.first {
        case "vapid":
            return try vapid(out: arguments.value("out"))
        default:
            try arguments.requireSubcommand("new", usage: usage)
            guard arguments.value("out") == nil else {
                throw Arguments.Problem(description: "--out is for keys vapid\n\(usage)")
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
}
