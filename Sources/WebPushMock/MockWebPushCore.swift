/// What every connection of a ``MockWebPushServer`` shares besides the script and the record: the
/// configuration and the subscriptions.
final class MockWebPushCore: Sendable {
    let configuration: MockWebPushConfiguration
    let subscriptions: MockSubscriptions

    init(configuration: MockWebPushConfiguration) {
        self.configuration = configuration
        subscriptions = MockSubscriptions(directory: configuration.subscriptionsDirectory)
    }
}
