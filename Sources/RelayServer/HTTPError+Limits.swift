import RelayHTTP

extension HTTPError {
    /// 429 `rate_limited` for a call over rate `limit` (a fixed name), with `Retry-After`.
    static func rateLimited(_ limit: String, _ detail: String, retryAfter seconds: Int) -> HTTPError {
        HTTPError(
            status: 429,
            code: "rate_limited",
            message: overLimit(limit, detail),
            headers: [("Retry-After", "\(seconds)")]
        )
    }

    /// 409 `limit_reached` for a write over count `limit` (`devices`, `rooms`): no `Retry-After`, since
    /// waiting frees nothing.
    static func limitReached(_ limit: String, _ detail: String) -> HTTPError {
        .conflict(code: "limit_reached", message: overLimit(limit, detail))
    }

    /// The message of every refusal by a limit: its name, then what the caller is told of it.
    private static func overLimit(_ limit: String, _ detail: String) -> String { "Over the \(limit) limit: \(detail)" }
}
