"""SAP's pyodata, a V2 client nobody here wrote, against a running gateway.

    python pyodata_client.py http://127.0.0.1:<port>/CarDealer.svc/

Exits non-zero (with the assertion that failed) unless every step works unchanged:
$metadata, reads, navigation, $count, $filter, $expand, create, update and delete.
"""
import datetime
import sys

import pyodata
import requests

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

created = client.entity_sets.Person.create_entity().set(
    firstName="Ada", lastName="Lovelace",
    createDate=datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc)).execute()
assert created.personID > 60 and created.lastName == "Lovelace", created
client.entity_sets.Person.update_entity(personID=created.personID).set(firstName="Augusta").execute()
assert client.entity_sets.Person.get_entity(created.personID).execute().firstName == "Augusta"
client.entity_sets.Person.delete_entity(personID=created.personID).execute()
assert client.entity_sets.Person.get_entities().count().execute() == 60

print("pyodata: all steps passed")
