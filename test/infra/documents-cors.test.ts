import { Match, Template } from 'aws-cdk-lib/assertions';
import { DataStack, DOCUMENTS_CORS_CONTEXT, documentsCorsOriginsFromContext } from '../../lib/stacks/data-stack';
import { freshApp, resourcesOf } from './fixture';

/**
 * CORS of the documents bucket: browsers may PUT presigned uploads (with the signed
 * Content-Type and checksum headers) and GET/HEAD downloads from the configured origins only;
 * without configuration there is no rule at all.
 */
const documentsBucketOf = (template: Template) =>
  Object.values(resourcesOf(template, 'AWS::S3::Bucket')).find((b) => JSON.stringify(b.Properties?.BucketName ?? '').includes('-documents-'))!;

const dataStack = (context: Record<string, unknown>) => {
  const app = freshApp(context);
  return Template.fromStack(new DataStack(app, 'Data', { apiEnvironment: 'TEST', documentsCorsOrigins: documentsCorsOriginsFromContext(app.node) }));
};

describe('documents bucket CORS', () => {
  it('has no CORS rule by default', () => {
    expect(documentsBucketOf(dataStack({})).Properties?.CorsConfiguration).toBeUndefined();
  });

  it('allows PUT, GET and HEAD from the configured origins with the headers a presigned upload signs', () => {
    const template = dataStack({ [DOCUMENTS_CORS_CONTEXT]: 'https://app.example.com, https://Admin.example.com:8443' });
    expect(documentsBucketOf(template).Properties?.CorsConfiguration).toEqual({
      CorsRules: [
        {
          Id: 'BrowserPresignedUploadsAndDownloads',
          AllowedOrigins: ['https://app.example.com', 'https://admin.example.com:8443'],
          AllowedMethods: ['PUT', 'GET', 'HEAD'],
          AllowedHeaders: ['content-type', 'x-amz-checksum-sha256', 'x-amz-sdk-checksum-algorithm'],
          ExposedHeaders: ['ETag', 'Content-Disposition', 'Content-Length', 'Content-Type', 'x-amz-checksum-sha256'],
          MaxAge: 3000,
        },
      ],
    });
    // The reports bucket gets none.
    template.hasResourceProperties('AWS::S3::Bucket', { BucketName: Match.objectLike({ 'Fn::Join': Match.arrayWith([Match.arrayWith([Match.stringLikeRegexp('-reports-')])]) }), CorsConfiguration: Match.absent() });
  });

  it('accepts a list and refuses wildcards, http, paths and junk', () => {
    expect(documentsCorsOriginsFromContext({ tryGetContext: () => ['https://a.example.com', 'https://a.example.com'] })).toEqual(['https://a.example.com']);
    for (const bad of ['*', 'https://*.example.com', 'http://app.example.com', 'https://app.example.com/path', 'app.example.com']) {
      expect(() => documentsCorsOriginsFromContext({ tryGetContext: () => bad })).toThrow(DOCUMENTS_CORS_CONTEXT);
    }
  });
});
