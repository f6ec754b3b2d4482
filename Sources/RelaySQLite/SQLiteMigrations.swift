/// The SQLite schema as numbered steps. Step N brings `PRAGMA user_version` from N-1 to N; each step runs in
/// its own transaction together with the version bump. Never edit a released step: append a new one.
///
/// Conventions: times are UNIX epoch MILLISECONDS (INTEGER); UUIDs are lowercase text; tokens as their platform has them
/// (APNs lowercase hex, FCM exactly as given);
/// `devices.unlinked_topics` is a JSON array of strings.
enum SQLiteMigrations {
    static let steps: [String] = [
        // 1: the initial schema.
        """
        CREATE TABLE devices (
            app_id          TEXT NOT NULL,
            token           TEXT NOT NULL,
            user_id         TEXT NOT NULL,
            environment     TEXT NOT NULL,
            state           TEXT NOT NULL DEFAULT 'live' CHECK (state IN ('live', 'retired')),
            created_at      INTEGER NOT NULL,
            updated_at      INTEGER NOT NULL,
            retired_at      INTEGER,
            retired_reason  TEXT,
            apns_timestamp  INTEGER,
            unlinked_topics TEXT NOT NULL DEFAULT '[]',
            PRIMARY KEY (app_id, token)
        ) WITHOUT ROWID;
        CREATE INDEX devices_by_user ON devices (app_id, user_id);
        CREATE INDEX devices_retired ON devices (app_id, retired_at) WHERE state = 'retired';

        CREATE TABLE room_members (
            app_id    TEXT NOT NULL,
            room_id   TEXT NOT NULL,
            user_id   TEXT NOT NULL,
            muted     INTEGER NOT NULL DEFAULT 0,
            joined_at INTEGER NOT NULL,
            PRIMARY KEY (app_id, room_id, user_id)
        ) WITHOUT ROWID;

        CREATE TABLE notifications (
            id          TEXT PRIMARY KEY NOT NULL,
            app_id      TEXT NOT NULL,
            kind        TEXT NOT NULL,
            message_id  TEXT,
            room_id     TEXT NOT NULL,
            sender_id   TEXT NOT NULL,
            topic       TEXT NOT NULL,
            push_type   TEXT NOT NULL,
            priority    INTEGER NOT NULL,
            expiration  INTEGER,
            collapse_id TEXT,
            payload     BLOB NOT NULL,
            created_at  INTEGER NOT NULL
        );
        CREATE UNIQUE INDEX notifications_by_message ON notifications (app_id, kind, message_id)
            WHERE message_id IS NOT NULL;

        CREATE TABLE deliveries (
            id              INTEGER PRIMARY KEY,
            notification_id TEXT NOT NULL REFERENCES notifications (id) ON DELETE CASCADE,
            app_id          TEXT NOT NULL,
            token           TEXT NOT NULL,
            status          TEXT NOT NULL DEFAULT 'pending'
                            CHECK (status IN ('pending', 'sent', 'failed', 'retired')),
            attempts        INTEGER NOT NULL DEFAULT 0,
            last_status     INTEGER,
            last_reason     TEXT,
            created_at      INTEGER NOT NULL,
            updated_at      INTEGER NOT NULL,
            sent_at         INTEGER,
            next_attempt_at INTEGER,
            lease_until     INTEGER
        );
        CREATE INDEX deliveries_due ON deliveries (next_attempt_at, id) WHERE status = 'pending';
        CREATE INDEX deliveries_by_notification ON deliveries (notification_id, id);
        CREATE INDEX deliveries_pending_by_device ON deliveries (app_id, token) WHERE status = 'pending';

        CREATE TABLE health (
            id         INTEGER PRIMARY KEY CHECK (id = 1),
            checked_at INTEGER NOT NULL
        );
        """,
        // 2: the feedback outbox: one row per retired token of an app with a feedback URL, written in the
        // transaction that retires the device, deleted once POSTed (2xx) or dropped (expired).
        """
        CREATE TABLE feedback (
            id              INTEGER PRIMARY KEY,
            app_id          TEXT NOT NULL,
            token           TEXT NOT NULL,
            user_id         TEXT NOT NULL,
            environment     TEXT NOT NULL,
            reason          TEXT NOT NULL,
            apns_timestamp  INTEGER,
            retired_at      INTEGER NOT NULL,
            attempts        INTEGER NOT NULL DEFAULT 0,
            next_attempt_at INTEGER NOT NULL,
            expires_at      INTEGER NOT NULL,
            lease_until     INTEGER,
            last_status     INTEGER,
            last_error      TEXT
        );
        CREATE INDEX feedback_due ON feedback (next_attempt_at, id);
        """,
        // 3: for the fan-out's speed. A device's pending deliveries are ended when claimed (device retired,
        // unlinked or deleted), never looked up by device: the index on (app_id, token), in random order,
        // cost a page write per delivery created and per delivery completed. Devices by user carry what the
        // fan-out reads (state, unlinked topics; the token is the key), so it never visits the table. Due
        // deliveries are claimed app by app, each a range of the due index.
        """
        DROP INDEX deliveries_pending_by_device;
        DROP INDEX devices_by_user;
        CREATE INDEX devices_by_user_state ON devices (app_id, user_id, state, unlinked_topics);
        DROP INDEX deliveries_due;
        CREATE INDEX deliveries_due ON deliveries (app_id, next_attempt_at, id) WHERE status = 'pending';
        """,
        // 4: deliveries rebuilt (SQLite cannot alter a CHECK; https://sqlite.org/lang_altertable.html,
        // "Making Other Kinds Of Table Schema Changes") with the same columns, rows and indexes. Only the
        // status CHECK changes, from `IN` to ORs: SQLite 3.40 builds an ephemeral table for an IN list of more
        // than two values each time the check runs, i.e. for every delivery inserted and every status
        // recorded. Measured: 9.9 -> 5.3 µs per recorded result, 2.4 -> 1.3 µs per delivery inserted.
        """
        CREATE TABLE deliveries_v4 (
            id              INTEGER PRIMARY KEY,
            notification_id TEXT NOT NULL REFERENCES notifications (id) ON DELETE CASCADE,
            app_id          TEXT NOT NULL,
            token           TEXT NOT NULL,
            status          TEXT NOT NULL DEFAULT 'pending'
                            CHECK (status = 'pending' OR status = 'sent' OR status = 'failed' OR status = 'retired'),
            attempts        INTEGER NOT NULL DEFAULT 0,
            last_status     INTEGER,
            last_reason     TEXT,
            created_at      INTEGER NOT NULL,
            updated_at      INTEGER NOT NULL,
            sent_at         INTEGER,
            next_attempt_at INTEGER,
            lease_until     INTEGER
        );
        INSERT INTO deliveries_v4 (id, notification_id, app_id, token, status, attempts, last_status, last_reason,
            created_at, updated_at, sent_at, next_attempt_at, lease_until)
        SELECT id, notification_id, app_id, token, status, attempts, last_status, last_reason,
            created_at, updated_at, sent_at, next_attempt_at, lease_until
        FROM deliveries;
        DROP TABLE deliveries;
        ALTER TABLE deliveries_v4 RENAME TO deliveries;
        CREATE INDEX deliveries_due ON deliveries (app_id, next_attempt_at, id) WHERE status = 'pending';
        CREATE INDEX deliveries_by_notification ON deliveries (notification_id, id);
        """,
        // 5: a notification's deliveries are one run of ids (one INSERT ... SELECT writes them all while it holds
        // the write lock), so the notification keeps its first and last delivery id (NULL when it has none)
        // and the index by notification goes: it cost an entry of 45 bytes, in an index of its own, for every
        // delivery, about a fifth of accepting a webhook (measured on 100,000 devices: 0.58 -> 0.45 s). Reads
        // by notification are a range of the table's ids, still filtered by notification id. Nothing deletes
        // notifications; whatever does later must delete their deliveries by id range first (the foreign key's
        // cascade would scan the table).
        """
        ALTER TABLE notifications ADD COLUMN first_delivery_id INTEGER;
        ALTER TABLE notifications ADD COLUMN last_delivery_id INTEGER;
        UPDATE notifications SET
            first_delivery_id = (SELECT min(id) FROM deliveries WHERE notification_id = notifications.id),
            last_delivery_id = (SELECT max(id) FROM deliveries WHERE notification_id = notifications.id);
        DROP INDEX deliveries_by_notification;
        """,
        // 6: a delivery keeps its device's user, and the claim reads the device through the per-user index,
        // which now carries every column the claim needs. A fan-out's deliveries are written in user order
        // (the accept walks the room's members), so the claim reads that index in order; by token it read the
        // devices table at random, which was about half of a claim (100,000 deliveries in the sqlite3 shell:
        // 0.59 -> 0.23 s). A device registered again for another user is no longer found for the old user's
        // deliveries: they end as for a deleted device instead of reaching the device's new user. Pending
        // deliveries get their device's user here.
        """
        ALTER TABLE deliveries ADD COLUMN user_id TEXT;
        UPDATE deliveries SET user_id = (
            SELECT d.user_id FROM devices AS d WHERE d.app_id = deliveries.app_id AND d.token = deliveries.token
        )
        WHERE status = 'pending';
        DROP INDEX devices_by_user_state;
        CREATE INDEX devices_by_user_state
            ON devices (app_id, user_id, state, unlinked_topics, environment, updated_at, retired_reason);
        """,
        // 7: leases by run. A claim takes its jobs a run at a time (one app and due time, a range of ids) and
        // wrote the lease into every row of the run: a rewrite of every table page of the run (about 20 MB of
        // WAL per 100,000 deliveries) and about a fifth of the claim's time (3.2 µs per delivery in the
        // sqlite3 module; the read is the rest). A run's lease is now one row here; a pending delivery is
        // leased while a live lease's run covers it (same app and due time, id in range). A result moves the
        // delivery out of its run: it is no longer pending, or due later. Leases held when this step runs were
        // a stopped relay's, released at start-up anyway.
        """
        CREATE TABLE delivery_leases (
            app_id          TEXT NOT NULL,
            next_attempt_at INTEGER NOT NULL,
            first_id        INTEGER NOT NULL,
            last_id         INTEGER NOT NULL,
            lease_until     INTEGER NOT NULL
        );
        CREATE INDEX delivery_leases_by_run ON delivery_leases (app_id, next_attempt_at, last_id);
        ALTER TABLE deliveries DROP COLUMN lease_until;
        """,
        // 8: a delivery row holds only what differs per device. Its notification is the one whose run of
        // delivery ids (step 5) holds its id, found by `notifications_by_deliveries`; the notification's id
        // (36 bytes of text and a foreign-key lookup per row) and its creation time are no longer copied into
        // every row, and `updated_at` is NULL until the first result (the notification's time until then).
        // Measured on 100,000 devices in the sqlite3 module: 0.62 -> 0.45 s to insert and commit, 19.4 ->
        // 14.3 MB of WAL. The table is rebuilt (SQLite cannot drop a column with a foreign key); the columns
        // the claim reads come first.
        """
        CREATE TABLE deliveries_v8 (
            id              INTEGER PRIMARY KEY,
            app_id          TEXT NOT NULL,
            user_id         TEXT,
            token           TEXT NOT NULL,
            status          TEXT NOT NULL DEFAULT 'pending'
                            CHECK (status = 'pending' OR status = 'sent' OR status = 'failed' OR status = 'retired'),
            attempts        INTEGER NOT NULL DEFAULT 0,
            next_attempt_at INTEGER,
            updated_at      INTEGER,
            sent_at         INTEGER,
            last_status     INTEGER,
            last_reason     TEXT
        );
        INSERT INTO deliveries_v8 (id, app_id, user_id, token, status, attempts, next_attempt_at, updated_at,
            sent_at, last_status, last_reason)
        SELECT id, app_id, user_id, token, status, attempts, next_attempt_at, updated_at, sent_at, last_status,
            last_reason
        FROM deliveries;
        DROP TABLE deliveries;
        ALTER TABLE deliveries_v8 RENAME TO deliveries;
        CREATE INDEX deliveries_due ON deliveries (app_id, next_attempt_at, id) WHERE status = 'pending';
        CREATE INDEX notifications_by_deliveries ON notifications (first_delivery_id)
            WHERE first_delivery_id IS NOT NULL;
        """,
        // 9: rooms the backend has given a membership rule of their own (`open` or `closed`; a room with no row
        // follows its app's setting), and members by user, for the rooms-per-user limit.
        """
        CREATE TABLE rooms (
            app_id     TEXT NOT NULL,
            room_id    TEXT NOT NULL,
            membership TEXT NOT NULL CHECK (membership = 'open' OR membership = 'closed'),
            updated_at INTEGER NOT NULL,
            PRIMARY KEY (app_id, room_id)
        ) WITHOUT ROWID;
        CREATE INDEX room_members_by_user ON room_members (app_id, user_id);
        """,
        // 10: the `Idempotency-Key`s of accepted webhooks, one row per key of a caller (`scope`) of an app,
        // written in the notification's transaction. The unique index makes the key's first notification the
        // only one; rows older than a day are forgotten and deleted in batches, oldest first, by age. No
        // foreign key: notifications are never deleted, and a key's row goes a day after its notification.
        """
        CREATE TABLE idempotency_keys (
            app_id          TEXT NOT NULL,
            scope           TEXT NOT NULL,
            key             TEXT NOT NULL,
            request_hash    BLOB NOT NULL,
            notification_id TEXT NOT NULL,
            created_at      INTEGER NOT NULL
        );
        CREATE UNIQUE INDEX idempotency_keys_by_key ON idempotency_keys (app_id, scope, key);
        CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);
        """,
        // 11: platforms. A device has one (`ios` by default, what every device was) and keeps it in the per-user
        // index the claim reads; a feedback item carries its token's. A notification keeps the chat message
        // (text or caption, image URL, names) instead of a rendered APNs request: each delivery is rendered for
        // its device's platform when sent. Rebuilt (SQLite cannot drop NOT NULL columns): the APNs headers go
        // (push type and priority were always alert and 10, the collapse id is the message id), and an
        // earlier notification keeps its alert as its message (body as text or caption, title as room name),
        // which renders the same alert again (a body that is not JSON leaves an empty message).
        """
        ALTER TABLE devices ADD COLUMN platform TEXT NOT NULL DEFAULT 'ios'
            CHECK (platform = 'ios' OR platform = 'android');
        DROP INDEX devices_by_user_state;
        CREATE INDEX devices_by_user_state ON devices
            (app_id, user_id, state, unlinked_topics, environment, updated_at, retired_reason, platform);
        ALTER TABLE feedback ADD COLUMN platform TEXT NOT NULL DEFAULT 'ios';
        CREATE TABLE notifications_v11 (
            id                TEXT PRIMARY KEY NOT NULL,
            app_id            TEXT NOT NULL,
            kind              TEXT NOT NULL,
            message_id        TEXT,
            room_id           TEXT NOT NULL,
            sender_id         TEXT NOT NULL,
            text              TEXT,
            image_url         TEXT,
            room_name         TEXT,
            sender_name       TEXT,
            topic             TEXT NOT NULL,
            expiration        INTEGER,
            created_at        INTEGER NOT NULL,
            first_delivery_id INTEGER,
            last_delivery_id  INTEGER
        );
        INSERT INTO notifications_v11 (id, app_id, kind, message_id, room_id, sender_id, text, image_url, room_name,
            sender_name, topic, expiration, created_at, first_delivery_id, last_delivery_id)
        SELECT id, app_id, kind, message_id, room_id, sender_id,
            CASE WHEN json_valid(body) THEN coalesce(json_extract(body, '$.aps.alert.body'),
                CASE json_type(body, '$.aps.alert') WHEN 'text' THEN json_extract(body, '$.aps.alert') END) END,
            CASE WHEN json_valid(body) THEN json_extract(body, '$.imageUrl') END,
            CASE WHEN json_valid(body) THEN json_extract(body, '$.aps.alert.title') END,
            NULL, topic, expiration, created_at, first_delivery_id, last_delivery_id
        FROM (SELECT *, CAST(payload AS TEXT) AS body FROM notifications);
        DROP TABLE notifications;
        ALTER TABLE notifications_v11 RENAME TO notifications;
        CREATE UNIQUE INDEX notifications_by_message ON notifications (app_id, kind, message_id)
            WHERE message_id IS NOT NULL;
        CREATE INDEX notifications_by_deliveries ON notifications (first_delivery_id)
            WHERE first_delivery_id IS NOT NULL;
        """,
        // 12: a lease names its owner, the instance id of the relay that claimed it, so a relay starting
        // releases only its own leases, and one stopping hands back only its own claims. Leases held when
        // this step runs were a stopped relay's (the file is migrated as it opens), unowned: they are
        // released here, as that relay's next start would have done.
        """
        DELETE FROM delivery_leases;
        ALTER TABLE delivery_leases ADD COLUMN lease_owner TEXT NOT NULL DEFAULT '';
        UPDATE feedback SET lease_until = NULL;
        ALTER TABLE feedback ADD COLUMN lease_owner TEXT;
        """,
        // 13: state relays sharing a database keep in it (one file has one relay, but both stores keep the
        // same tables): the APNs provider token of each signing key; each sender's webhook bucket (in
        // micro-tokens) and this minute's pushes per sender and recipient; when each periodic job runs next;
        // notifications by age and keys by notification, for the retention job.
        """
        CREATE TABLE provider_tokens (
            team_id    TEXT NOT NULL,
            key_id     TEXT NOT NULL,
            token      TEXT NOT NULL,
            issued_at  INTEGER NOT NULL,
            PRIMARY KEY (team_id, key_id)
        ) WITHOUT ROWID;
        CREATE TABLE rate_buckets (
            app_id       TEXT NOT NULL,
            user_id      TEXT NOT NULL,
            micro_tokens INTEGER NOT NULL,
            updated_at   INTEGER NOT NULL,
            PRIMARY KEY (app_id, user_id)
        ) WITHOUT ROWID;
        CREATE INDEX rate_buckets_by_age ON rate_buckets (app_id, updated_at);
        CREATE TABLE rate_pushes (
            app_id       TEXT NOT NULL,
            sender_id    TEXT NOT NULL,
            recipient_id TEXT NOT NULL,
            minute       INTEGER NOT NULL,
            pushes       INTEGER NOT NULL,
            PRIMARY KEY (app_id, sender_id, recipient_id)
        ) WITHOUT ROWID;
        CREATE INDEX rate_pushes_by_minute ON rate_pushes (minute);
        CREATE TABLE periodic_runs (
            job         TEXT PRIMARY KEY NOT NULL,
            next_run_at INTEGER NOT NULL,
            owner       TEXT NOT NULL,
            last_run_at INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX notifications_by_age ON notifications (created_at);
        CREATE INDEX idempotency_keys_by_notification ON idempotency_keys (notification_id);
        """,
        // 14: per-user quotas. A message id names one message of an app whatever its kind: of earlier
        // notifications sharing one (across kinds) only the first keeps it. Buckets are named (`writes`, every
        // write of a user; `webhooks`); buckets are transient (a missing one is full), so they start again.
        // `user_usage` counts a user's notifications and stored bytes of the current UTC day; retired devices
        // by retirement time, for the retention job.
        """
        UPDATE notifications SET message_id = NULL WHERE message_id IS NOT NULL AND EXISTS (
            SELECT 1 FROM notifications AS first WHERE first.app_id = notifications.app_id
                AND first.message_id = notifications.message_id
                AND (first.created_at, first.id) < (notifications.created_at, notifications.id)
        );
        DROP INDEX notifications_by_message;
        CREATE UNIQUE INDEX notifications_by_message ON notifications (app_id, message_id)
            WHERE message_id IS NOT NULL;
        DROP TABLE rate_buckets;
        CREATE TABLE rate_buckets (
            app_id       TEXT NOT NULL,
            user_id      TEXT NOT NULL,
            bucket       TEXT NOT NULL,
            micro_tokens INTEGER NOT NULL,
            updated_at   INTEGER NOT NULL,
            PRIMARY KEY (app_id, user_id, bucket)
        ) WITHOUT ROWID;
        CREATE INDEX rate_buckets_by_age ON rate_buckets (app_id, bucket, updated_at);
        CREATE TABLE user_usage (
            app_id        TEXT NOT NULL,
            user_id       TEXT NOT NULL,
            day           INTEGER NOT NULL,
            notifications INTEGER NOT NULL,
            bytes         INTEGER NOT NULL,
            PRIMARY KEY (app_id, user_id)
        ) WITHOUT ROWID;
        CREATE INDEX user_usage_by_day ON user_usage (day);
        CREATE INDEX devices_by_retirement ON devices (retired_at) WHERE state = 'retired';
        """,
        // 15: a membership records who made it, `user` (the user joined itself) or `backend`, since closing
        // a room removes the users' own. Earlier rows kept no such record: a member of a room whose own
        // rule is closed who joined at or after the rule was set can only have been added by the backend;
        // every other row may be a user's own join and becomes `user`, so that closing its room later
        // leaves only the members the backend sets (a backend that named such a member before keeps it by
        // naming it again).
        """
        ALTER TABLE room_members ADD COLUMN origin TEXT NOT NULL DEFAULT 'user'
            CHECK (origin IN ('user', 'backend'));
        UPDATE room_members SET origin = 'backend' WHERE EXISTS (
            SELECT 1 FROM rooms AS r WHERE r.app_id = room_members.app_id AND r.room_id = room_members.room_id
                AND r.membership = 'closed' AND room_members.joined_at >= r.updated_at);
        """,
        // 16: the Ditto mirror (issue 21). `ditto_documents` holds each mirrored document's applied txnId, and
        // with `removed` = 1 its tombstone; rooms, users, subscriptions and mentions are rows, so a message's
        // recipients come from set-based queries. `ditto_seen_messages` keeps a message id until `keep_until`
        // (ms), so one id becomes at most one notification.
        """
        CREATE TABLE ditto_documents (
            app_id     TEXT NOT NULL,
            collection TEXT NOT NULL,
            doc_id     TEXT NOT NULL,
            txn_id     INTEGER NOT NULL,
            removed    INTEGER NOT NULL,
            PRIMARY KEY (app_id, collection, doc_id)
        ) WITHOUT ROWID;
        CREATE TABLE ditto_rooms (
            app_id       TEXT NOT NULL,
            collection   TEXT NOT NULL,
            room_id      TEXT NOT NULL,
            is_direct    INTEGER NOT NULL,
            name         TEXT,
            messages_id  TEXT,
            is_generated INTEGER NOT NULL,
            participants TEXT NOT NULL,
            PRIMARY KEY (app_id, collection, room_id)
        ) WITHOUT ROWID;
        CREATE INDEX ditto_rooms_by_id ON ditto_rooms (app_id, room_id);
        CREATE INDEX ditto_rooms_by_messages ON ditto_rooms (app_id, messages_id);
        CREATE TABLE ditto_users (
            app_id  TEXT NOT NULL,
            user_id TEXT NOT NULL,
            name    TEXT,
            PRIMARY KEY (app_id, user_id)
        ) WITHOUT ROWID;
        CREATE TABLE ditto_subscriptions (
            app_id  TEXT NOT NULL,
            room_id TEXT NOT NULL,
            user_id TEXT NOT NULL,
            read_at INTEGER,
            PRIMARY KEY (app_id, room_id, user_id)
        ) WITHOUT ROWID;
        CREATE INDEX ditto_subscriptions_by_user ON ditto_subscriptions (app_id, user_id);
        CREATE TABLE ditto_mentions (
            app_id     TEXT NOT NULL,
            room_id    TEXT NOT NULL,
            message_id TEXT NOT NULL,
            user_id    TEXT NOT NULL,
            PRIMARY KEY (app_id, room_id, message_id, user_id)
        ) WITHOUT ROWID;
        CREATE INDEX ditto_mentions_by_user ON ditto_mentions (app_id, user_id);
        CREATE TABLE ditto_seen_messages (
            app_id     TEXT NOT NULL,
            message_id TEXT NOT NULL,
            txn_id     INTEGER NOT NULL,
            keep_until INTEGER NOT NULL,
            PRIMARY KEY (app_id, message_id)
        ) WITHOUT ROWID;
        CREATE INDEX ditto_seen_messages_by_age ON ditto_seen_messages (keep_until);
        """,
        // 17: a tombstone records when it was written (`removed_at`, ms; NULL for a live document), so the
        // retention job deletes tombstones older than `apps[].ditto.tombstoneRetentionHours`. Tombstones
        // written before this step count from the step's run.
        """
        ALTER TABLE ditto_documents ADD COLUMN removed_at INTEGER;
        UPDATE ditto_documents SET removed_at = CAST(strftime('%s', 'now') AS INTEGER) * 1000 WHERE removed = 1;
        CREATE INDEX ditto_documents_by_removal ON ditto_documents (app_id, removed_at)
            WHERE removed_at IS NOT NULL;
        """,
        // 18: an app's pending `requeryRequired`: the highest requery txnId received, the highest one
        // whose re-read completed (pending while below `txn_id`), and the re-read's lease (one relay at a time;
        // `lease_until` in ms, taken over once it passed).
        """
        CREATE TABLE ditto_requeries (
            app_id           TEXT PRIMARY KEY NOT NULL,
            txn_id           INTEGER NOT NULL,
            completed_txn_id INTEGER NOT NULL DEFAULT 0,
            requested_at     INTEGER NOT NULL,
            lease_owner      TEXT,
            lease_until      INTEGER
        ) WITHOUT ROWID;
        """,
        // 19: notification levels. A user's own level for a room is a row of `room_levels`, apart
        // from its membership, since an app whose members Ditto holds keeps levels for users who are no
        // member rows; `user_settings` holds a user's default. A muted member is a member at level `none`.
        """
        CREATE TABLE room_levels (
            app_id  TEXT NOT NULL,
            room_id TEXT NOT NULL,
            user_id TEXT NOT NULL,
            level   TEXT NOT NULL CHECK (level IN ('all', 'mentions', 'none')),
            PRIMARY KEY (app_id, room_id, user_id)
        ) WITHOUT ROWID;
        CREATE TABLE user_settings (
            app_id  TEXT NOT NULL,
            user_id TEXT NOT NULL,
            notify  TEXT NOT NULL CHECK (notify IN ('all', 'mentions', 'none')),
            PRIMARY KEY (app_id, user_id)
        ) WITHOUT ROWID;
        INSERT INTO room_levels (app_id, room_id, user_id, level)
        SELECT app_id, room_id, user_id, 'none' FROM room_members WHERE muted <> 0;
        ALTER TABLE room_members DROP COLUMN muted;
        """,
        // 20: unread counts (issue 22). `room_messages` indexes each room's messages (a webhook's by its
        // notification id, a Ditto message by its `_id`) with time, sender and archived flag, so a user's
        // unread count is a range of `room_messages_by_time` from its read position; rows older than
        // `storage.retentionHours` are deleted by the retention job. `room_members.read_at` is a member's read
        // position (NULL: its join time).
        """
        CREATE TABLE room_messages (
            app_id      TEXT NOT NULL,
            room_id     TEXT NOT NULL,
            message_key TEXT NOT NULL,
            sender_id   TEXT NOT NULL,
            created_at  INTEGER NOT NULL,
            archived    INTEGER NOT NULL,
            PRIMARY KEY (app_id, room_id, message_key)
        ) WITHOUT ROWID;
        CREATE INDEX room_messages_by_time ON room_messages (app_id, room_id, created_at, sender_id, archived);
        CREATE INDEX room_messages_by_age ON room_messages (created_at);
        ALTER TABLE room_members ADD COLUMN read_at INTEGER;
        """,
        // 21: wake budgets (issue 22): the wake pushes each device was given in the UTC clock hour `hour`
        // (UNIX epoch hours); a row of a past hour counts as none and is pruned.
        """
        CREATE TABLE wake_budgets (
            app_id TEXT NOT NULL,
            token  TEXT NOT NULL,
            hour   INTEGER NOT NULL,
            used   INTEGER NOT NULL,
            PRIMARY KEY (app_id, token)
        ) WITHOUT ROWID;
        CREATE INDEX wake_budgets_by_hour ON wake_budgets (hour);
        """,
        // 22: the grace window and deletes (issue 22). A delivery may end `cancelled` (its `last_reason` says
        // why: `read` or `deleted`); the table is rebuilt as in step 8, since SQLite cannot alter a CHECK.
        // `notifications.message_at` is the message's time (NULL: `created_at`), which a read position is
        // compared with.
        """
        CREATE TABLE deliveries_v22 (
            id              INTEGER PRIMARY KEY,
            app_id          TEXT NOT NULL,
            user_id         TEXT,
            token           TEXT NOT NULL,
            status          TEXT NOT NULL DEFAULT 'pending'
                            CHECK (status = 'pending' OR status = 'sent' OR status = 'failed' OR status = 'retired'
                                OR status = 'cancelled'),
            attempts        INTEGER NOT NULL DEFAULT 0,
            next_attempt_at INTEGER,
            updated_at      INTEGER,
            sent_at         INTEGER,
            last_status     INTEGER,
            last_reason     TEXT
        );
        INSERT INTO deliveries_v22 (id, app_id, user_id, token, status, attempts, next_attempt_at, updated_at,
            sent_at, last_status, last_reason)
        SELECT id, app_id, user_id, token, status, attempts, next_attempt_at, updated_at, sent_at, last_status,
            last_reason
        FROM deliveries;
        DROP TABLE deliveries;
        ALTER TABLE deliveries_v22 RENAME TO deliveries;
        CREATE INDEX deliveries_due ON deliveries (app_id, next_attempt_at, id) WHERE status = 'pending';
        ALTER TABLE notifications ADD COLUMN message_at INTEGER;
        """,
        // 23: badge updates (issue 22): one row per device (app id and token), its pending update's due time
        // (NULL: none pending), its last send, the app's window, and the version of the user's count it has
        // (``BadgeUpdateSQL``); claims lease rows like deliveries.
        """
        CREATE TABLE badge_updates (
            id              INTEGER PRIMARY KEY,
            app_id          TEXT NOT NULL,
            token           TEXT NOT NULL,
            user_id         TEXT NOT NULL,
            window_ms       INTEGER NOT NULL,
            due_at          INTEGER,
            sent_at         INTEGER,
            version         INTEGER NOT NULL,
            claimed_version INTEGER,
            attempts        INTEGER NOT NULL,
            lease_owner     TEXT,
            lease_until     INTEGER
        );
        CREATE UNIQUE INDEX badge_updates_by_device ON badge_updates (app_id, token);
        CREATE INDEX badge_updates_due ON badge_updates (due_at) WHERE due_at IS NOT NULL;
        CREATE INDEX badge_updates_idle ON badge_updates (sent_at) WHERE due_at IS NULL;
        """,
        // 24: cached unread totals (issue 22): one row per app and user with a live device, its total and
        // the source its positions were counted from (`from_ditto`: a Ditto app's subscriptions, else
        // memberships). Rows are made when a user registers a device or is first claimed for, and kept in
        // the transaction of every change (``UnreadSQL`` `+Totals`); the step leaves the table empty.
        """
        CREATE TABLE unread_totals (
            app_id     TEXT NOT NULL,
            user_id    TEXT NOT NULL,
            from_ditto INTEGER NOT NULL,
            total      INTEGER NOT NULL,
            PRIMARY KEY (app_id, user_id)
        ) WITHOUT ROWID;
        """,
        // 25: web devices (issue 24). A device's `address` is what it is reached at when that is more than
        // its token (a web subscription's JSON; NULL for APNs and FCM), and `web` is a platform; the table is
        // rebuilt as in step 22, since SQLite cannot alter a CHECK. The per-user index carries the address,
        // so a claim still reads only the index. A feedback item keeps its device's address.
        """
        CREATE TABLE devices_v25 (
            app_id          TEXT NOT NULL,
            token           TEXT NOT NULL,
            user_id         TEXT NOT NULL,
            environment     TEXT NOT NULL,
            state           TEXT NOT NULL DEFAULT 'live' CHECK (state IN ('live', 'retired')),
            created_at      INTEGER NOT NULL,
            updated_at      INTEGER NOT NULL,
            retired_at      INTEGER,
            retired_reason  TEXT,
            apns_timestamp  INTEGER,
            unlinked_topics TEXT NOT NULL DEFAULT '[]',
            platform        TEXT NOT NULL DEFAULT 'ios' CHECK (platform IN ('ios', 'android', 'web')),
            address         TEXT,
            PRIMARY KEY (app_id, token)
        ) WITHOUT ROWID;
        INSERT INTO devices_v25 (app_id, token, user_id, environment, state, created_at, updated_at, retired_at,
            retired_reason, apns_timestamp, unlinked_topics, platform)
        SELECT app_id, token, user_id, environment, state, created_at, updated_at, retired_at, retired_reason,
            apns_timestamp, unlinked_topics, platform
        FROM devices;
        DROP TABLE devices;
        ALTER TABLE devices_v25 RENAME TO devices;
        CREATE INDEX devices_retired ON devices (app_id, retired_at) WHERE state = 'retired';
        CREATE INDEX devices_by_retirement ON devices (retired_at) WHERE state = 'retired';
        CREATE INDEX devices_by_user_state ON devices
            (app_id, user_id, state, unlinked_topics, environment, updated_at, retired_reason, platform, address);
        ALTER TABLE feedback ADD COLUMN address TEXT;
        """,
        // 26: a requery sweep's tombstones written without their time are purged counting from the
        // migration, as step 17 did for a remove's.
        """
        UPDATE ditto_documents SET removed_at = CAST(strftime('%s', 'now') AS INTEGER) * 1000
        WHERE removed = 1 AND removed_at IS NULL;
        """,
        // 27: a user's own room levels by user, for the count a level write of an app with a stream makes
        // (``RelayStore/UserLimitsSQL`` `levelsElsewhereSQL`); seen message ids kept past what a message's
        // `createdOn` may now extend them to (a day ahead, the longest age limit of a day, the 10-minute
        // margin: 173,400 s) are cut to it.
        """
        CREATE INDEX room_levels_by_user ON room_levels (app_id, user_id);
        UPDATE ditto_seen_messages SET keep_until = CAST(strftime('%s', 'now') AS INTEGER) * 1000 + 173400000
        WHERE keep_until > CAST(strftime('%s', 'now') AS INTEGER) * 1000 + 173400000;
        """,
        // 28: read positions by room and time, for a claim's read of who read a message's room since
        // (``RelayStore/UnreadSQL`` `readers`); positions never set are left out.
        """
        CREATE INDEX room_members_by_read ON room_members (app_id, room_id, read_at) WHERE read_at IS NOT NULL;
        CREATE INDEX ditto_subscriptions_by_read ON ditto_subscriptions (app_id, room_id, read_at)
            WHERE read_at IS NOT NULL;
        """,
        // 29: the mark of a `storage copy` writing into this store (``RelayStore/StoreCopy/Mark``).
        """
        CREATE TABLE store_copies (
            id         INTEGER PRIMARY KEY CHECK (id = 1),
            started_at INTEGER NOT NULL
        );
        """,
        // 30: the first message of a JS edit chain, on each replacing message's index row (NULL: the message
        // replaces none), so an edit or delete naming an edit reaches the notification of the first.
        """
        ALTER TABLE room_messages ADD COLUMN root_key TEXT;
        """,
    ]
}
