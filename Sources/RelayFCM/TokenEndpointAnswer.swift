import Foundation
import RelayCore

/// What the token endpoint answers (RFC 6749 §5.1 and §5.2): an access token, or an OAuth error.
struct TokenEndpointAnswer: Decodable {
    var accessToken: String?
    var expiresIn: Int?
    var tokenType: String?
    var error: String?
    var errorDescription: String?

    private enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case expiresIn = "expires_in"
        case tokenType = "token_type"
        case error
        case errorDescription = "error_description"
    }

    /// The access token and its lifetime from a 200 answer.
    /// - Throws: ``AccessTokenError`` for an OAuth error, a body that is not the JSON, a token type other than
    ///   Bearer, a token holding characters a header cannot carry, or a lifetime that is not positive.
    static func accessToken(status: Int, body: Data) throws(AccessTokenError) -> (token: String, lifetime: Duration) {
        guard let answer = try? JSONDecoder().decode(TokenEndpointAnswer.self, from: body) else {
            throw AccessTokenError(status: status, error: nil, message: "the answer is not OAuth 2.0 JSON")
        }
        guard status == 200 else {
            throw AccessTokenError(
                status: status,
                error: answer.error,
                message: answer.errorDescription ?? "no error_description"
            )
        }
        guard answer.tokenType?.lowercased() == "bearer" else {
            throw AccessTokenError(status: status, error: nil, message: "token_type is not Bearer")
        }
        guard let token = answer.accessToken, !token.isEmpty,
            token.isVisibleASCII
        else {
            throw AccessTokenError(status: status, error: nil, message: "access_token is missing or not printable")
        }
        guard let seconds = answer.expiresIn, seconds > 0 else {
            throw AccessTokenError(status: status, error: nil, message: "expires_in is missing or not positive")
        }
        return (token, .seconds(seconds))
    }
}
