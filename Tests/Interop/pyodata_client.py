"""SAP's pyodata, a V2 client nobody here wrote, against a running gateway.

    python pyodata_client.py http://127.0.0.1:<port>/CarDealer.svc/
    python pyodata_client.py --inventory http://127.0.0.1:<port>/CarDealer.svc/

Exits non-zero (with the assertion that failed) unless every step works unchanged: on the car
dealer, $metadata, reads, navigation, $count, $filter (a 200-value in-list too), $expand,
service operations through pyodata's functions, create, update and delete; on the tests'
inventory schema, composite keys and every simple type read back as pyodata types, and
DateTimeOffset with offsets, Decimal at precision 29 and Int64 at its ends written back.
"""
import datetime
import decimal
import sys
import uuid

import pyodata
import pyodata.exceptions
import requests


def inventory(client):
    bolt = client.entity_sets.Items.get_entity(Id=1).execute()
    assert bolt.Label == "Bolt" and bolt.InStock is True and bolt.Shelf == 200
    assert bolt.Arrived == datetime.datetime(2009, 10, 31, 17, 8, 28, 440000, tzinfo=datetime.timezone.utc), bolt.Arrived
    assert bolt.Audited == datetime.datetime(2009, 11, 1, 9, 30, tzinfo=datetime.timezone.utc), bolt.Audited
    assert str(bolt.Price) == "12.345", bolt.Price
    assert bolt.Weight == 0.5 and bolt.Big == 9007199254740993 and bolt.Small == -300 and bolt.Tiny == -5
    assert uuid.UUID(str(bolt.Serial)) == uuid.UUID("c9a4b6e2-1f0d-4c53-9a77-0123456789ab"), bolt.Serial
    warehouse = client.entity_sets.Warehouses.get_entity(Region="north", Code=1).execute()
    assert warehouse.Name == "North One"
    assert [i.Label for i in warehouse.nav("Items").get_entities().execute()] == ["Bolt", "Nut"]
    note = client.entity_sets.Notes.get_entity(ItemId=1, Line=2).execute()
    assert note.Text == "second"
    # pyodata writes a DateTimeOffset as /Date(local clock ms+offset)/: the same instant comes back.
    india = datetime.datetime(2012, 3, 4, 5, 6, 7, tzinfo=datetime.timezone(datetime.timedelta(hours=5, minutes=30)))
    client.entity_sets.Items.update_entity(Id=1).set(Audited=india).execute()
    audited = client.entity_sets.Items.get_entity(Id=1).execute().Audited
    assert audited == india, audited
    west = datetime.datetime(1969, 12, 31, 20, 0, tzinfo=datetime.timezone(datetime.timedelta(hours=-7)))
    client.entity_sets.Items.update_entity(Id=1).set(Audited=west).execute()
    assert client.entity_sets.Items.get_entity(Id=1).execute().Audited == west
    # Decimal at precision 29 and Int64 at its ends and beyond 2^53, written, read and filtered.
    exact = "1234567890123456789012345.6789"
    client.entity_sets.Items.update_entity(Id=1).set(Exact=exact).execute()
    client.entity_sets.Items.update_entity(Id=2).set(Exact="1234567890123456789012345.6788", Big=9007199254740992).execute()
    client.entity_sets.Items.update_entity(Id=5).set(Big=9223372036854775807).execute()
    assert decimal.Decimal(client.entity_sets.Items.get_entity(Id=1).execute().Exact) == decimal.Decimal(exact)
    hits = client.entity_sets.Items.get_entities().filter(f"Exact eq {exact}M").execute()
    assert [i.Id for i in hits] == [1], hits
    ordered = client.entity_sets.Items.get_entities().filter("Exact ne null").order_by("Exact desc").execute()
    assert [i.Id for i in ordered] == [1, 2], ordered
    assert [i.Id for i in client.entity_sets.Items.get_entities().filter(Big=9007199254740993).execute()] == [1]
    assert client.entity_sets.Items.get_entity(Id=4).execute().Big == -2 ** 63
    assert client.entity_sets.Items.get_entity(Id=5).execute().Big == 2 ** 63 - 1
    print("pyodata: all steps passed")
    sys.exit(0)


if sys.argv[1] == "--inventory":
    inventory(pyodata.Client(sys.argv[2], requests.Session()))

root = sys.argv[1]
client = pyodata.Client(root, requests.Session())

sets = [s.name for s in client.schema.entity_sets]
assert sets == ["Person", "Car", "PersonCar", "Maintenance", "PersonCarMaintenance"], sets

people = client.entity_sets.Person.get_entities().top(3).execute()
assert [(p.personID, p.lastName) for p in people][:1] == [(1, "Samson")], people

bob = client.entity_sets.Person.get_entity(1).execute()
assert (bob.firstName, bob.lastName, bob.ssn) == ("Bob", "Samson", "543872934")
assert bob.createDate == datetime.datetime(2009, 10, 31, 17, 8, 28, 440000, tzinfo=datetime.timezone.utc), bob.createDate

cars = bob.nav("PersonCar").get_entities().execute()
assert [pc.personCarID for pc in cars] == [1, 2], cars
explorer = client.entity_sets.PersonCar.get_entity(1).nav("Car").execute()
assert (explorer.make, explorer.model) == ("Ford", "Explorer")

count = client.entity_sets.Person.get_entities().count().execute()
assert count == 60, count
samsons = client.entity_sets.Person.get_entities().filter("lastName eq 'Samson'").execute()
assert {p.firstName for p in samsons} == {"Bob", "Alice"}, samsons
expanded = client.entity_sets.Person.get_entity(1).expand("PersonCar").execute()
assert [pc.personCarID for pc in expanded.PersonCar] == [1, 2]

# filter(key__in=[...]) is an `or` chain of four nodes a value: 200 values must pass.
odd = client.entity_sets.Person.get_entities().filter(personID__in=list(range(1, 400, 2))).execute()
assert sorted(p.personID for p in odd) == list(range(1, 61, 2)), odd

# Service operations, through pyodata's functions API as it reads them from $metadata.
names = sorted(f.name for f in client.schema.function_imports)
assert names == ["CarsDueForService", "TotalMaintenanceCost"], names
due = client.functions.CarsDueForService.parameter("miles", 60000).execute()
assert len(due) > 0 and all(d.mileage < 60000 for d in due), due
rows = client.entity_sets.PersonCarMaintenance.get_entities().filter(
    "mileage add Maintenance/intervalMiles le 60000").execute()
assert {d.personCarMaintenanceID for d in due} == {r.personCarMaintenanceID for r in rows}, (len(due), len(rows))
total = client.functions.TotalMaintenanceCost.parameter("personID", 1).execute()
own = [pc.personCarID for pc in client.entity_sets.Person.get_entity(1).nav("PersonCar").get_entities().execute()]
costs = [decimal.Decimal(str(m.cost)) for pc in own
         for m in client.entity_sets.PersonCar.get_entity(pc).nav("PersonCarMaintenance").get_entities().execute()]
assert decimal.Decimal(total["TotalMaintenanceCost"]) == sum(costs, decimal.Decimal(0)), (total, costs)
try:
    client.functions.CarsDueForService.execute()
    raise AssertionError("a call without its parameter was accepted")
except pyodata.exceptions.HttpError as error:
    assert error.response.status_code == 400 and "miles" in error.response.text, error.response.text

created = client.entity_sets.Person.create_entity().set(
    firstName="Ada", lastName="Lovelace",
    createDate=datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc)).execute()
assert created.personID > 60 and created.lastName == "Lovelace", created
client.entity_sets.Person.update_entity(personID=created.personID).set(firstName="Augusta").execute()
assert client.entity_sets.Person.get_entity(created.personID).execute().firstName == "Augusta"
client.entity_sets.Person.delete_entity(personID=created.personID).execute()
assert client.entity_sets.Person.get_entities().count().execute() == 60

print("pyodata: all steps passed")
