"""Where journals live: an SQLite file by default, or a PostgreSQL server by URL.

The store keeps, per campaign, an append-only table of events (:mod:`fracas.campaign.journal`).
Nothing is ever updated or deleted. An event is appended in one transaction that checks the
journal still ends where the writer read it: two game masters writing at once both read
event 7, the first writes event 8, the second is refused (:class:`StaleWrite`) and re-reads.
The primary key (campaign, sequence number) makes that refusal hold on every database, even
when both transactions pass the check at the same moment.

The schema is versioned: ``schema_version`` holds the version, and :data:`UPGRADES` the steps
from each version to the next, run in order when a store is opened.

>>> store = Store.open("sqlite://")
>>> store.create("War", "d100", {"name": "War", "ruleset": "d100"})
>>> [event.kind for event in store.events("War")]
['campaign_created']
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from fracas.campaign.journal import Event, make_event
from fracas.core.errors import FracasError, ScenarioError

#: The version this fracas writes. Older stores are upgraded when opened.
SCHEMA_VERSION = 2


class StaleWrite(FracasError):
    """The journal moved on since it was read (someone else wrote): read again, retry."""


class UnknownCampaign(FracasError, LookupError):
    """No campaign of that name in the store. ``problem`` says so without saying where
    (a page shows it to anyone; the database's place is the game master's)."""

    def __init__(self, where: str, problem: str) -> None:
        super().__init__(f"{where}: {problem}")
        self.problem = problem


def shown_url(url: str) -> str:
    """``url`` as messages show it: its password hidden.

    >>> shown_url("postgresql+psycopg://gm:secret@db.example/wars")
    'postgresql+psycopg://gm:***@db.example/wars'
    >>> shown_url("sqlite:///war.db")
    'sqlite:///war.db'
    """
    try:
        from sqlalchemy.engine import make_url

        return str(make_url(url).render_as_string(hide_password=True))
    except Exception:  # an URL SQLAlchemy cannot read shows nothing of what follows "//"
        return url.split("://", 1)[0] + "://…" if "://" in url else url


#: The first bytes of every SQLite database file.
_SQLITE_HEADER = b"SQLite format 3\x00"
#: What SQLite keeps of one database: its file, and the files beside it in WAL mode.
SQLITE_SUFFIXES = ("", "-wal", "-shm", "-journal")


def sqlite_file(db: str) -> Path | None:
    """The file of the SQLite store ``db`` names (a path or an ``sqlite:///`` URL); None
    for a database in memory or on a server.

    >>> sqlite_file("war.db"), sqlite_file("sqlite:///war.db"), sqlite_file("postgresql://h/w")
    (PosixPath('war.db'), PosixPath('war.db'), None)
    """
    url = database_url(db)
    if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
        return Path(url[len("sqlite:///") :])
    return None


def refuse_other_file(file: Path, source: str) -> None:
    """Refuse an existing ``file`` that is not an SQLite database: opening it as a store
    would make one of it (an empty file becomes a database, WAL files beside it) before
    the command that only meant to read it fails.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile(suffix=".yaml") as scenario:
    ...     refuse_other_file(Path(scenario.name), "battle.yaml")
    Traceback (most recent call last):
    ...
    fracas.core.errors.ScenarioError: battle.yaml: not a campaign database (not an SQLite file)
    """
    try:
        with file.open("rb") as handle:
            header = handle.read(len(_SQLITE_HEADER))
    except OSError:
        return  # missing or unreadable: opening it says so
    if header != _SQLITE_HEADER:
        raise ScenarioError("not a campaign database (not an SQLite file)", source=source)


def database_url(db: str) -> str:
    """A database URL from what a user types: a URL as it is, a path as an SQLite file.

    >>> database_url("war.db")
    'sqlite:///war.db'
    >>> database_url("postgresql://gm@localhost/wars")
    'postgresql+psycopg://gm@localhost/wars'
    """
    if db.startswith(("postgresql://", "postgres://")):
        return "postgresql+psycopg://" + db.split("://", 1)[1]
    if "://" in db:
        return db
    return f"sqlite:///{db}"


def _tables() -> tuple[Any, Any, Any, Any]:
    import sqlalchemy as sa

    meta = sa.MetaData()
    version = sa.Table("schema_version", meta, sa.Column("version", sa.Integer, nullable=False))
    campaigns = sa.Table(
        "campaigns",
        meta,
        sa.Column("name", sa.String(200), primary_key=True),
        sa.Column("ruleset", sa.String(100), nullable=False),
    )
    events = sa.Table(
        "events",
        meta,
        sa.Column("campaign", sa.String(200), sa.ForeignKey("campaigns.name"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("kind", sa.String(40), nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("prev", sa.String(64), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        # Version 2: when the event was appended (wall-clock, UTC). Not part of the hashed
        # content: the journal means the same wherever and whenever it is replayed.
        sa.Column("recorded_at", sa.String(40), nullable=True),
    )
    return meta, version, campaigns, events


def _upgrade_to_1(connection: Any) -> None:
    """Version 1: the campaigns and their events (without ``recorded_at``)."""
    import sqlalchemy as sa

    connection.execute(sa.text("CREATE TABLE schema_version (version INTEGER NOT NULL)"))
    connection.execute(
        sa.text(
            "CREATE TABLE campaigns (name VARCHAR(200) PRIMARY KEY, ruleset VARCHAR(100) NOT NULL)"
        )
    )
    connection.execute(
        sa.text(
            "CREATE TABLE events (campaign VARCHAR(200) NOT NULL REFERENCES campaigns(name), "
            "seq INTEGER NOT NULL, kind VARCHAR(40) NOT NULL, body TEXT NOT NULL, "
            "prev VARCHAR(64) NOT NULL, hash VARCHAR(64) NOT NULL, PRIMARY KEY (campaign, seq))"
        )
    )
    connection.execute(sa.text("INSERT INTO schema_version (version) VALUES (1)"))


def _upgrade_to_2(connection: Any) -> None:
    """Version 2: each event notes when it was appended."""
    import sqlalchemy as sa

    connection.execute(sa.text("ALTER TABLE events ADD COLUMN recorded_at VARCHAR(40)"))
    connection.execute(sa.text("UPDATE schema_version SET version = 2"))


#: The step that brings a store from version ``n - 1`` to ``n``, for every ``n``.
UPGRADES: dict[int, Callable[[Any], None]] = {1: _upgrade_to_1, 2: _upgrade_to_2}


class Store:
    """A journal store on one database (see the module's text)."""

    def __init__(self, engine: Any, url: str) -> None:
        self.engine = engine
        self.url = url
        #: The URL as messages and the terminal show it (no password).
        self.shown = shown_url(url)
        _, self._version, self._campaigns, self._events = _tables()

    @classmethod
    def open(cls, db: str, *, upgrade_to: int = SCHEMA_VERSION, read_only: bool = False) -> Store:
        """Open (creating when missing) the store at ``db``: a path or a database URL.

        ``upgrade_to`` exists for the upgrade tests: a store left at an older version.
        ``read_only`` (the web pages) creates nothing and upgrades nothing: a missing
        file, an empty database or an older store is refused instead.
        """
        try:
            import sqlalchemy as sa
        except ImportError:
            raise FracasError("campaigns need SQLAlchemy: pip install 'fracas[campaign]'") from None

        url = database_url(db)
        options: dict[str, Any] = {}
        if url.startswith("sqlite"):
            file = sqlite_file(db)
            if file is not None:
                if not file.parent.is_dir():
                    raise ScenarioError("no such folder for the database", source=str(file.parent))
                if read_only and not file.is_file():
                    raise ScenarioError("no campaign database here", source=db)
                if read_only:
                    refuse_other_file(file, db)
            # Writers wait for each other's lock instead of failing at once.
            options["connect_args"] = {"timeout": 30}
            if url in ("sqlite://", "sqlite:///:memory:"):
                options["poolclass"] = sa.pool.StaticPool
        try:
            engine = sa.create_engine(url, **options)
        except (sa.exc.ArgumentError, ImportError, ValueError) as exc:
            raise ScenarioError(f"not a usable database URL ({exc})", source=db) from None
        if url.startswith("sqlite"):
            _sqlite_pragmas(engine, read_only=read_only)
        elif read_only:
            _read_only_sessions(engine)
        store = cls(engine, url)
        try:
            if read_only:
                store._check_readable(db)
                return store
            store._upgrade(upgrade_to)
        except sa.exc.DBAPIError as exc:
            raise ScenarioError(
                f"cannot open the database ({str(exc.orig).strip()})", source=db
            ) from None
        return store

    def version(self) -> int:
        """The schema version of the store (0: empty)."""
        import sqlalchemy as sa

        with self.engine.connect() as connection:
            if not sa.inspect(connection).has_table("schema_version"):
                return 0
            return int(connection.execute(sa.select(self._version.c.version)).scalar_one())

    def _check_readable(self, db: str) -> None:
        """Refuse, without writing, a store this fracas cannot read as it is."""
        current = self.version()
        if current == 0:
            raise ScenarioError("not a campaign database (it holds no journal)", source=db)
        self._refuse_newer(current)
        if current < SCHEMA_VERSION:
            raise ScenarioError(
                f"the database has schema version {current}; this fracas reads "
                f"{SCHEMA_VERSION}: any 'fracas campaign' command on it upgrades it",
                source=db,
            )

    def _refuse_newer(self, current: int) -> None:
        if current > SCHEMA_VERSION:
            raise ScenarioError(
                f"the database has schema version {current}; this fracas reads up to "
                f"{SCHEMA_VERSION}: upgrade fracas",
                source=self.shown,
            )

    def _upgrade(self, target: int) -> None:
        current = self.version()
        self._refuse_newer(current)
        for step in range(current + 1, target + 1):
            with self.engine.begin() as connection:
                UPGRADES[step](connection)

    def close(self) -> None:
        """Release the database connections."""
        self.engine.dispose()

    # Campaigns ---------------------------------------------------------------------------

    def campaigns(self) -> list[tuple[str, str]]:
        """Every campaign in the store, as ``(name, ruleset)``, by name."""
        import sqlalchemy as sa

        with self.engine.connect() as connection:
            rows = connection.execute(
                sa.select(self._campaigns.c.name, self._campaigns.c.ruleset).order_by(
                    self._campaigns.c.name
                )
            )
            return [(str(name), str(ruleset)) for name, ruleset in rows]

    def create(self, name: str, ruleset: str, body: Mapping[str, Any]) -> None:
        """A new campaign whose first event (``campaign_created``) has ``body``."""
        import sqlalchemy as sa

        first = make_event(1, "campaign_created", body, "")
        try:
            with self.engine.begin() as connection:
                connection.execute(sa.insert(self._campaigns).values(name=name, ruleset=ruleset))
                connection.execute(sa.insert(self._events).values(**self._row(name, first)))
        except sa.exc.IntegrityError:
            raise ScenarioError(
                f"a campaign called {name!r} already exists in this database", source=self.shown
            ) from None

    def ruleset_of(self, name: str) -> str:
        """The ruleset campaign ``name`` is played with."""
        import sqlalchemy as sa

        with self.engine.connect() as connection:
            found = connection.execute(
                sa.select(self._campaigns.c.ruleset).where(self._campaigns.c.name == name)
            ).scalar_one_or_none()
        if found is None:
            known = ", ".join(n for n, _ in self.campaigns()) or "none yet"
            raise UnknownCampaign(self.shown, f"no campaign called {name!r} (there are: {known})")
        return str(found)

    # Events ------------------------------------------------------------------------------

    def events(self, name: str) -> list[Event]:
        """The journal of campaign ``name``, in order."""
        import sqlalchemy as sa

        self.ruleset_of(name)
        table = self._events
        with self.engine.connect() as connection:
            rows = connection.execute(
                sa.select(table.c.seq, table.c.kind, table.c.body, table.c.prev, table.c.hash)
                .where(table.c.campaign == name)
                .order_by(table.c.seq)
            )
            return [
                Event(int(seq), str(kind), json.loads(body), str(prev), str(digest))
                for seq, kind, body, prev, digest in rows
            ]

    def append(self, name: str, kind: str, body: Mapping[str, Any], *, after: Event) -> Event:
        """Append one event after ``after``, the last event the writer read.

        Raises :class:`StaleWrite` when the journal no longer ends with ``after``.
        """
        import sqlalchemy as sa

        event = make_event(after.seq + 1, kind, body, after.hash)
        table = self._events
        stale = StaleWrite(
            f"campaign {name!r} changed since it was read (event {after.seq} is no longer "
            "the last): run the command again"
        )
        try:
            with self.engine.connect() as connection, _immediate(connection), connection.begin():
                last = connection.execute(
                    sa.select(sa.func.max(table.c.seq)).where(table.c.campaign == name)
                ).scalar_one()
                if last != after.seq:
                    raise stale
                connection.execute(sa.insert(table).values(**self._row(name, event)))
        except sa.exc.IntegrityError:
            raise stale from None
        return event

    @staticmethod
    def _row(name: str, event: Event) -> dict[str, Any]:
        from fracas.io.canonical import canonical_json

        return {
            "campaign": name,
            "seq": event.seq,
            "kind": event.kind,
            "body": canonical_json(event.body),
            "prev": event.prev,
            "hash": event.hash,
            "recorded_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        }


def _sqlite_pragmas(engine: Any, *, read_only: bool = False) -> None:
    import sqlalchemy as sa

    @sa.event.listens_for(engine, "connect")
    def _on_connect(connection: Any, _record: Any) -> None:
        # Transactions are begun explicitly (BEGIN IMMEDIATE in append), not by the driver.
        connection.isolation_level = None
        cursor = connection.cursor()
        if read_only:
            # Setting the journal mode rewrites the file's header: a reader (the web
            # pages) leaves the file as the GM made it, and could not write if it tried.
            cursor.execute("PRAGMA query_only=ON")
        else:
            cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @sa.event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        # A writer takes the write lock before it reads: its check and its write are one.
        connection.exec_driver_sql(
            "BEGIN IMMEDIATE" if connection.info.get(_IMMEDIATE) else "BEGIN"
        )


def _read_only_sessions(engine: Any) -> None:
    """Every session of ``engine`` (a server database) refuses to write."""
    import sqlalchemy as sa

    @sa.event.listens_for(engine, "connect")
    def _on_connect(connection: Any, _record: Any) -> None:
        cursor = connection.cursor()
        cursor.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
        cursor.close()
        # A setting is rolled back with the transaction it was made in.
        connection.commit()


_IMMEDIATE = "fracas.immediate"


@contextmanager
def _immediate(connection: Any) -> Iterator[None]:
    connection.info[_IMMEDIATE] = True
    try:
        yield
    finally:
        connection.info.pop(_IMMEDIATE, None)
