"""SAP's pyodata, unchanged, reads one entity over HTTPS with an API key.

Usage: pyodata_https.py SERVICE_ROOT CA_FILE KEY ENTITY_SET KEY_VALUE HIDDEN_PROPERTY
Trusts only CA_FILE; sends the key on every request as a Bearer token; checks that the entity
read has no HIDDEN_PROPERTY (hidden from the key's role).
"""
import sys

import pyodata
import requests

root, ca_file, key, entity_set, key_value, hidden = sys.argv[1:7]
session = requests.Session()
session.verify = ca_file
# requests lets REQUESTS_CA_BUNDLE / CURL_CA_BUNDLE in the environment override session.verify.
session.trust_env = False
session.headers["Authorization"] = "Bearer " + key
client = pyodata.Client(root, session)
entity = getattr(client.entity_sets, entity_set).get_entity(int(key_value)).execute()
type_properties = [p.name for p in client.schema.entity_type(entity_set).proprties()]
assert hidden not in type_properties, type_properties
print("read", entity_set, key_value, [getattr(entity, name) for name in type_properties])
print("pyodata https: passed")
