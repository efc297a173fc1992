import { describe, expect, test } from "bun:test";
import { memberIds, parseGroupPath, planGroupPatch, toUserId } from "../../src/scim/groups/patch";
import { ScimError } from "../../src/scim/errors";

function scimTypeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    if (e instanceof ScimError) return `${e.status} ${e.scimType}`;
    throw e;
  }
  throw new Error("expected a ScimError");
}

describe("planGroupPatch", () => {
  test("Entra: Add and Remove on members with value arrays, op in any case", () => {
    expect(
      planGroupPatch([
        { op: "Add", path: "members", value: [{ value: "1" }, { value: 2 }] },
        { op: "REMOVE", path: "members", value: [{ value: "3" }] },
      ]),
    ).toEqual([
      { kind: "addMembers", userIds: [1, 2] },
      { kind: "removeMembers", userIds: [3] },
    ]);
  });

  test("Okta: remove with members[value eq \"42\"], also or-joined and numeric", () => {
    expect(planGroupPatch([{ op: "remove", path: 'members[value eq "42"]' }])).toEqual([{ kind: "removeMembers", userIds: [42] }]);
    expect(planGroupPatch([{ op: "remove", path: 'members[value eq "1" or value eq 2]' }])).toEqual([{ kind: "removeMembers", userIds: [1, 2] }]);
    expect(planGroupPatch([{ op: "remove", path: 'urn:ietf:params:scim:schemas:core:2.0:Group:members[ VALUE EQ "7" ]' }])).toEqual([
      { kind: "removeMembers", userIds: [7] },
    ]);
  });

  test("Okta: replace members, replace without path renames (id echoed and ignored)", () => {
    expect(planGroupPatch([{ op: "replace", path: "members", value: [{ value: "5", display: "x" }] }])).toEqual([
      { kind: "replaceMembers", userIds: [5] },
    ]);
    expect(planGroupPatch([{ op: "replace", value: { id: "abc", displayName: "New name" } }])).toEqual([
      { kind: "setDisplayName", displayName: "New name" },
    ]);
  });

  test("replace displayName with a path; URN-prefixed keys; externalId", () => {
    expect(planGroupPatch([{ op: "Replace", path: "displayName", value: "QA" }])).toEqual([{ kind: "setDisplayName", displayName: "QA" }]);
    expect(
      planGroupPatch([{ op: "replace", value: { "urn:ietf:params:scim:schemas:core:2.0:Group:displayName": "QA", externalId: "e1" } }]),
    ).toEqual([
      { kind: "setDisplayName", displayName: "QA" },
      { kind: "setExternalId", externalId: "e1" },
    ]);
    expect(planGroupPatch([{ op: "remove", path: "externalId" }])).toEqual([{ kind: "setExternalId", externalId: null }]);
  });

  test("no-path add adds members; remove members without value removes all", () => {
    expect(planGroupPatch([{ op: "add", value: { members: [{ value: "9" }] } }])).toEqual([{ kind: "addMembers", userIds: [9] }]);
    expect(planGroupPatch([{ op: "remove", path: "members" }])).toEqual([{ kind: "replaceMembers", userIds: [] }]);
  });

  test("unknown or non-user member values are skipped, not errors", () => {
    expect(planGroupPatch([{ op: "add", path: "members", value: [{ value: "abc" }, { value: "-1" }, { value: 1.5 }, { value: "4", type: "Group" }, { value: "6", type: "user" }] }])).toEqual([
      { kind: "addMembers", userIds: [6] },
    ]);
  });

  test("everything else is a 400 with a SCIM type", () => {
    expect(scimTypeOf(() => planGroupPatch([]))).toBe("400 invalidValue");
    expect(scimTypeOf(() => planGroupPatch([{ op: "move", path: "members", value: [] }]))).toBe("400 invalidValue");
    expect(scimTypeOf(() => planGroupPatch([{ op: "add", path: "owners", value: [] }]))).toBe("400 invalidPath");
    expect(scimTypeOf(() => planGroupPatch([{ op: "add", path: "members.value", value: "1" }]))).toBe("400 invalidPath");
    expect(scimTypeOf(() => planGroupPatch([{ op: "remove", path: 'members[display eq "x"]' }]))).toBe("400 invalidPath");
    expect(scimTypeOf(() => planGroupPatch([{ op: "remove", path: 'members[value ne "1"]' }]))).toBe("400 invalidPath");
    expect(scimTypeOf(() => planGroupPatch([{ op: "replace", path: 'members[value eq "1"]', value: {} }]))).toBe("400 invalidPath");
    expect(scimTypeOf(() => planGroupPatch([{ op: "remove" }]))).toBe("400 noTarget");
    expect(scimTypeOf(() => planGroupPatch([{ op: "remove", path: "displayName" }]))).toBe("400 mutability");
    expect(scimTypeOf(() => planGroupPatch([{ op: "replace", path: "displayName", value: "  " }]))).toBe("400 invalidValue");
    expect(scimTypeOf(() => planGroupPatch([{ op: "replace", path: "displayName", value: 5 }]))).toBe("400 invalidValue");
    expect(scimTypeOf(() => planGroupPatch([{ op: "replace", value: "x" }]))).toBe("400 invalidValue");
    expect(scimTypeOf(() => planGroupPatch([{ op: "replace", value: { title: "x" } }]))).toBe("400 invalidPath");
    expect(scimTypeOf(() => planGroupPatch([{ op: "add", path: "members", value: "1" }]))).toBe("400 invalidValue");
    expect(scimTypeOf(() => planGroupPatch([{ op: "add", path: "members", value: [{ display: "x" }] }]))).toBe("400 invalidValue");
    expect(scimTypeOf(() => planGroupPatch([{ op: "add", path: "members", value: [{ value: true }] }]))).toBe("400 invalidValue");
    expect(scimTypeOf(() => planGroupPatch([{ op: "add", path: "members", value: ["1"] }]))).toBe("400 invalidValue");
  });
});

test("parseGroupPath", () => {
  expect(parseGroupPath("MEMBERS")).toEqual({ kind: "members" });
  expect(parseGroupPath("displayname")).toEqual({ kind: "displayName" });
  expect(parseGroupPath('members[value eq "a\\"b"]')).toEqual({ kind: "memberFilter", userIds: [] });
});

test("member values: string or number, single object accepted", () => {
  expect(memberIds({ value: "12" }, "v")).toEqual([12]);
  expect(toUserId(" 42 ")).toBe(42);
  expect(toUserId("0")).toBeNull();
  expect(toUserId("99999999999999999999")).toBeNull();
  expect(toUserId(2 ** 60)).toBeNull();
});
