import Foundation

extension Configuration {
    /// A warning for each two apps that trust a JWT key in common (the same public key file contents, JWKS
    /// file contents or JWKS URL) without `audience` (or `issuer`) values that tell their tokens apart: a
    /// token the identity provider issued for one app is taken by the other as its user of the same id.
    var sharedUserKeyWarnings: [String] {
        let trusted = apps.enumerated().compactMap { index, app -> (index: Int, id: String, jwt: UserAuth.JWT)? in
            app.userAuth?.jwt.map { (index, app.id, $0) }
        }
        var warnings: [String] = []
        for (position, first) in trusted.enumerated() {
            let keys = Self.keySources(of: first.jwt, at: "apps[\(first.index)].userAuth.jwt")
            for second in trusted[(position + 1)...] {
                let other = Self.keySources(of: second.jwt, at: "apps[\(second.index)].userAuth.jwt")
                guard let shared = other.first(where: { key in keys.contains { $0.contents == key.contents } })
                else { continue }
                guard !Self.apart(first.jwt.audience, second.jwt.audience),
                    !Self.apart(first.jwt.issuer, second.jwt.issuer)
                else { continue }
                warnings.append(
                    "apps '\(first.id)' and '\(second.id)' trust the same JWT key (\(shared.name)) without "
                        + "audiences or issuers that differ (set apps[\(first.index)].userAuth.jwt.audience and "
                        + "apps[\(second.index)].userAuth.jwt.audience, each its own): a token issued for one app "
                        + "is taken by the other"
                )
            }
        }
        return warnings
    }

    /// Whether two apps' values of one claim rule set their tokens apart: both set, and different.
    private static func apart(_ one: String?, _ other: String?) -> Bool {
        guard let one, let other else { return false }
        return one != other
    }

    /// One place a JWT key is trusted from, named by its key path (a URL's query may hold a secret), compared
    /// by `contents`: a file's without its whitespace (the same key under two paths, with other line ends or
    /// folded otherwise, is one key), or the JWKS URL.
    private struct KeySource {
        var name: String
        var contents: String
    }

    private static func keySources(of jwt: UserAuth.JWT, at path: String) -> [KeySource] {
        func file(_ file: String, _ name: String) -> KeySource? {
            guard let data = FileManager.default.contents(atPath: file) else { return nil }
            let text = String(decoding: data, as: UTF8.self).filter { !$0.isWhitespace }
            return KeySource(name: name, contents: "file:" + text)
        }
        let files = jwt.publicKeyFiles.enumerated().compactMap { file($1, "\(path).publicKeyFiles[\($0)]") }
        let jwks = jwt.jwksFile.flatMap { file($0, "\(path).jwksFile") }
        let url = jwt.jwksURL.map { KeySource(name: "\(path).jwksURL", contents: "url:" + $0) }
        return files + [jwks, url].compactMap { $0 }
    }
}
