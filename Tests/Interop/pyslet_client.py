"""pyslet's OData client, which reads and writes Atom, against a running gateway.

    python pyslet_client.py http://127.0.0.1:<port>/CarDealer.svc/

Exits non-zero (with the assertion that failed) unless every write works through pyslet's own
API: insert, insert through a navigation with a bound entity, PUT, MERGE, $links add (POST)
and replace (PUT), and delete. pyslet sends Atom entries and XML <uri> bodies.
"""
import sys

import pyslet.iso8601 as iso
from pyslet.odata2.client import Client

client = Client(sys.argv[1])
people_feed = client.feeds["Person"]

with people_feed.open() as people:
    # Insert (POST an Atom entry); the key is the store's.
    ada = people.new_entity()
    ada["firstName"].set_from_value("Ada & <Co>")
    ada["lastName"].set_from_value("Lovelace")
    ada["createDate"].set_from_value(iso.TimePoint.from_str("2009-11-01T12:00:00"))
    people.insert_entity(ada)
    key = ada.key()
    assert key == 61, key
    assert people[key]["firstName"].value == "Ada & <Co>"
    assert people[key]["ssn"].value is None

    # PUT replaces the entity.
    entity = people[key]
    entity["ssn"].set_from_value("111-22-3333")
    people.update_entity(entity)
    assert people[key]["ssn"].value == "111-22-3333"

    # MERGE changes what it names.
    entity = people[key]
    entity["lastName"].set_from_value("King")
    people.update_entity(entity, merge=True)
    read = people[key]
    assert (read["lastName"].value, read["ssn"].value) == ("King", "111-22-3333")

with client.feeds["Car"].open() as cars:
    car7, car8 = cars[7], cars[8]

with people_feed.open() as people:
    bob = people[2]
    # Insert through a navigation, bound to an existing car by an Atom link.
    with bob["PersonCar"].open() as owned:
        before = len(owned)
        ownership = owned.new_entity()
        ownership["createStamp"].set_from_value(iso.TimePoint.from_str("2010-01-01T00:00:00"))
        ownership["Car"].bind_entity(car7)
        owned.insert_entity(ownership)
        assert len(owned) == before + 1
        ownership_key = ownership.key()

    with client.feeds["PersonCar"].open() as ownerships:
        made = ownerships[ownership_key]
        with made["Car"].open() as car:
            assert list(car.keys()) == [7], list(car.keys())
            # $links replace: PUT <uri> on a to-one navigation.
            car.replace(car8)
        with made["Car"].open() as car:
            assert list(car.keys()) == [8], list(car.keys())
        first = ownerships[1]

    # $links add: POST <uri> to a to-many navigation.
    with bob["PersonCar"].open() as owned:
        owned[1] = first
        assert 1 in owned, sorted(owned.keys())

    # Delete.
    del people[61]
    assert 61 not in people

print("pyslet: all steps passed")
