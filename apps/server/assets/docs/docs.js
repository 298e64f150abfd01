// The /docs page's own script: Swagger UI on this server's /openapi.json. A file rather than an inline
// script, so the page's Content-Security-Policy can allow scripts from this server alone.
//
// "Try it out" starts every text field of a form empty, or at its documented default. Swagger UI
// itself fills each one with a sample made from its schema (an example, else a value matching its
// pattern or format, else the word "string"), and sends it: a callback_url of "http://" or a ranges of
// "string" made every upload operation fail from this page, and each try spent one of the hour's calls.
// A default is what the server would use anyway; anything else must be the user's own value.
function emptyFormFields() {
  return {
    afterLoad(system) {
      const sample = system.fn.getSampleSchema;
      // Swagger UI asks for a form field's first value with no media type (`false`): request-body.jsx.
      system.fn.getSampleSchema = (schema, mediaType, ...rest) => {
        const plain = schema && typeof schema.toJS === 'function' ? schema.toJS() : schema;
        if (mediaType !== false || plain?.type !== 'string' || plain.format === 'binary')
          return sample(schema, mediaType, ...rest);
        return plain.default === undefined ? '' : String(plain.default);
      };
    },
  };
}

window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  // Otherwise the page sends the document's URL to validator.swagger.io for a badge: a call elsewhere.
  validatorUrl: null,
  plugins: [emptyFormFields],
});
