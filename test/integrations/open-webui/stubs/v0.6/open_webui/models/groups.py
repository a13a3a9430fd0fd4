"""
A stand-in for Open WebUI's `open_webui.models.groups` (v0.6–0.8, synchronous data layer), with the real module's names and
signatures (backend/open_webui/models/groups.py: `GroupModel`, `GroupTable.get_groups_by_member_id(self, user_id)
-> list[GroupModel]`, `Groups = GroupTable()`). The database is `memberships.json` beside this file:
`{"<user id>": [{"id", "name", ...GroupModel fields}]}`, written by the test.
"""

import json
from pathlib import Path
from typing import Optional

from pydantic import BaseModel, ConfigDict


class GroupModel(BaseModel):
    id: str
    user_id: str

    name: str
    description: str

    data: Optional[dict] = None
    meta: Optional[dict] = None

    permissions: Optional[dict] = None

    created_at: int  # timestamp in epoch
    updated_at: int  # timestamp in epoch

    model_config = ConfigDict(from_attributes=True)


def _rows(user_id: str) -> list:
    path = Path(__file__).with_name("memberships.json")
    table = json.loads(path.read_text(encoding="utf-8"))
    if table.get("__fail__"):
        raise RuntimeError("database is locked")
    return table.get(user_id, [])


class GroupTable:
    def get_groups_by_member_id(self, user_id: str) -> list[GroupModel]:
        return [GroupModel(**row) for row in _rows(user_id)]


Groups = GroupTable()
