import { t } from "elysia";
import { enumLegend, type QaseEnum } from "../../qase/enums";

/**
 * Request side: Qase's number (what the Qase clients send) or the name (what the API took before
 * it answered numbers, and what people type). Any integer and any short string pass the schema;
 * `enumName` then turns an unknown one into a 400 that lists the values, which the schema's own
 * union error would not.
 */
export const EnumInput = <N extends string>(e: QaseEnum<N>) =>
  t.Union([t.Integer(), t.String({ minLength: 1, maxLength: 32 })], {
    description: `Qase's number or the name: ${enumLegend(e)}`,
    examples: [e.ids[Math.min(2, e.ids.length - 1)]],
  });

/** Response side: the number (one of the enum's, in the OpenAPI document's `enum`), with its meaning in the description. */
export const EnumNumber = <N extends string>(e: QaseEnum<N>) =>
  t.Integer({ enum: [...e.ids], description: enumLegend(e), examples: [e.ids[0]] });

/** Response side where Qase's model declares a string: Qase's spelling (`enumSlug`), the name wherever the two agree. */
export const EnumSlug = <N extends string>(e: QaseEnum<N>) => {
  const slugs = e.options.map((o) => o.slug) as [string, ...string[]];
  return t.UnionEnum(slugs, { description: slugs.join(", ") });
};
