import Foundation
import RelayAPNs
import RelayCore
import RelayFCM
import RelayStore
import RelayWebPush

extension Relay {
    /// One transport per platform, each holding every app's clients for it (made on first use). The APNs
    /// provider tokens are shared through `store` with every relay on it.
    /// - Throws: `FCMServiceAccount.LoadError` when an app's FCM service account file cannot be read, a
    ///   ``WebPushCore/WebPushError`` when an app's VAPID key cannot be read.
    static func transports(
        _ configuration: Configuration,
        store: any Store,
        time: any TimeSource,
        logger: Logger
    ) throws -> [any PushTransport] {
        let delivery = configuration.delivery
        let apns = APNsTransport(
            senders: APNsSenders(
                apps: configuration.apps,
                settings: delivery,
                time: time,
                logger: logger,
                tokenCache: store
            ),
            retry: delivery.retry,
            time: time,
            logger: logger.with(["component": "apns"])
        )
        let fcm = FCMTransport(
            configurations: try fcmConfigurations(configuration.apps, delivery: delivery, time: time),
            retry: delivery.retry,
            time: time,
            logger: logger.with(["component": "fcm"])
        )
        let web = WebPushTransport(
            configurations: try webPushConfigurations(configuration.apps, delivery: delivery, time: time),
            retry: delivery.retry,
            time: time,
            logger: logger.with(["component": "webpush"])
        )
        return [apns, fcm, web]
    }

    /// The FCM client settings of each app with a service account, by app id: Google's endpoint unless
    /// the app names another (a mock), with the delivery timeouts and in-flight limit the APNs clients get.
    static func fcmConfigurations(
        _ apps: [Configuration.App],
        delivery: Configuration.Delivery,
        time: any TimeSource
    ) throws -> [String: FCMClientConfiguration] {
        var configurations: [String: FCMClientConfiguration] = [:]
        for app in apps {
            guard let fcm = app.fcm, let file = fcm.serviceAccountFile else { continue }
            let endpoint: FCMClientConfiguration.Endpoint =
                fcm.endpoint.map { .custom(baseURL: $0.baseURL, caFile: $0.caFile) } ?? .production
            var configuration = FCMClientConfiguration(
                endpoint: endpoint,
                serviceAccount: try FCMServiceAccount(contentsOfFile: file),
                projectId: fcm.projectId
            )
            configuration.connectTimeout = .milliseconds(delivery.connectTimeoutMilliseconds)
            configuration.requestTimeout = .milliseconds(delivery.requestTimeoutMilliseconds)
            configuration.maxInFlight = delivery.concurrency
            configuration.timeSource = time
            configurations[app.id] = configuration
        }
        return configurations
    }

    /// The Web Push client settings of each app with a VAPID key, by app id: its subject, payload shape and
    /// mock, its messages' lifetime, and the delivery timeouts and in-flight limit the other clients get.
    static func webPushConfigurations(
        _ apps: [Configuration.App],
        delivery: Configuration.Delivery,
        time: any TimeSource
    ) throws -> [String: WebPushClientConfiguration] {
        var configurations: [String: WebPushClientConfiguration] = [:]
        for app in apps {
            guard let webPush = app.webPush, let file = webPush.vapidKeyFile else { continue }
            var configuration = try WebPushClientConfiguration(
                vapidKeyPEM: try String(contentsOfFile: file, encoding: .utf8),
                subject: webPush.subject ?? Configuration.WebPush.developmentSubject
            )
            configuration.declarative = webPush.declarative
            configuration.openURL = webPush.openURL
            configuration.ttlSeconds = app.ttlSeconds
            configuration.mock = webPush.mock
            configuration.connectTimeout = .milliseconds(delivery.connectTimeoutMilliseconds)
            configuration.requestTimeout = .milliseconds(delivery.requestTimeoutMilliseconds)
            configuration.maxInFlight = delivery.concurrency
            // One push service may take half of the app's web sending slots (its web lane in the dispatcher),
            // so the app's other browsers keep theirs when it stops answering.
            configuration.maxInFlightPerOrigin = max(1, delivery.perAppConcurrency / 2)
            configuration.timeSource = time
            configurations[app.id] = configuration
        }
        return configurations
    }
}
