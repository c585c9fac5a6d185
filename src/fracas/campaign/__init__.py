"""Campaigns: armies that remember their battles.

A campaign is an append-only journal of events (:mod:`fracas.campaign.journal`) kept in a
store (:mod:`fracas.campaign.store`, SQLite or PostgreSQL). The forces' rosters are never
stored: they are derived by replaying the journal (:mod:`fracas.campaign.rosters`). A battle
is built from the current rosters and played by the ruleset's own rules
(:mod:`fracas.campaign.battle`); what it changes is carried over by the ruleset's adapter
(:mod:`fracas.campaign.carry`). Anyone can re-play an exported journal
(:mod:`fracas.campaign.verify`) and audit its luck (:mod:`fracas.campaign.luck`).

``docs/campaigns.md`` walks through a whole war.
"""
