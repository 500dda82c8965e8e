import { name, positiveId, recordId, timestamp } from './common.js';

const email = { type: 'string', format: 'email', maxLength: 254 } as const;

export const registerBody = {
  $id: 'RegisterBody',
  type: 'object',
  additionalProperties: false,
  required: ['email', 'password'],
  properties: { email, password: { type: 'string', minLength: 8, maxLength: 1024 }, name },
} as const;

export const loginBody = {
  $id: 'LoginBody',
  type: 'object',
  additionalProperties: false,
  required: ['email', 'password'],
  properties: { email: { type: 'string', maxLength: 254 }, password: { type: 'string', maxLength: 1024 } },
} as const;

export const passwordChangeBody = {
  $id: 'PasswordChangeBody',
  type: 'object',
  additionalProperties: false,
  required: ['currentPassword', 'newPassword'],
  properties: { currentPassword: { type: 'string', maxLength: 1024 }, newPassword: { type: 'string', minLength: 8, maxLength: 1024 } },
} as const;

export const organizationBody = {
  $id: 'OrganizationBody',
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: { name },
} as const;

export const memberBody = {
  $id: 'MemberBody',
  type: 'object',
  additionalProperties: false,
  required: ['email'],
  properties: { email, role: { type: 'string', enum: ['member', 'admin', 'owner'], default: 'member' } },
} as const;

const role = { type: 'string', enum: ['member', 'admin', 'owner'] } as const;

export const roleBody = {
  $id: 'RoleBody',
  type: 'object',
  additionalProperties: false,
  required: ['role'],
  properties: { role },
} as const;

export const projectBody = {
  $id: 'ProjectBody',
  type: 'object',
  additionalProperties: false,
  required: ['name', 'organizationId'],
  properties: { name, organizationId: positiveId },
} as const;

export const applicationBody = {
  $id: 'ApplicationBody',
  type: 'object',
  additionalProperties: false,
  required: ['name', 'projectId'],
  properties: { name, projectId: positiveId },
} as const;

export const apiKeyBody = {
  $id: 'ApiKeyBody',
  type: 'object',
  additionalProperties: false,
  properties: { name },
} as const;

export const user = {
  $id: 'User',
  type: 'object',
  required: ['id', 'email', 'name'],
  properties: { id: recordId, email: { type: 'string' }, name: { type: 'string' } },
} as const;

export const authResult = {
  $id: 'AuthResult',
  type: 'object',
  required: ['token', 'user'],
  properties: { token: { type: 'string', description: 'HS256 JWT; send as `Authorization: Bearer <token>`.' }, user: { $ref: 'User' } },
} as const;

export const organization = {
  $id: 'Organization',
  type: 'object',
  required: ['id', 'name'],
  properties: { id: positiveId, name: { type: 'string' }, role: { type: 'string', enum: ['owner', 'admin', 'member'] } },
} as const;

export const me = {
  $id: 'Me',
  type: 'object',
  required: ['user', 'organizations'],
  properties: { user: { $ref: 'User' }, organizations: { type: 'array', items: { $ref: 'Organization' } } },
} as const;

export const invited = {
  $id: 'Invited',
  type: 'object',
  required: ['organizationId', 'email', 'role', 'expiresAt'],
  description: 'The same answer whether or not the email belongs to an account: the invitee accepts it once registered.',
  properties: { organizationId: positiveId, email: { type: 'string' }, role, expiresAt: timestamp },
} as const;

export const member = {
  $id: 'Member',
  type: 'object',
  required: ['user', 'role', 'creator'],
  properties: {
    user: { $ref: 'User' },
    role,
    creator: { type: 'boolean', description: 'The creator of the organization: only they can lower their own role or remove themselves.' },
  },
} as const;

export const invitation = {
  $id: 'Invitation',
  type: 'object',
  required: ['id', 'organization', 'role', 'invitedBy', 'createdAt', 'expiresAt'],
  properties: {
    id: recordId,
    organization: { type: 'object', required: ['id', 'name'], properties: { id: positiveId, name: { type: 'string' } } },
    role,
    invitedBy: { anyOf: [{ type: 'object', required: ['name', 'email'], properties: { name: { type: 'string' }, email: { type: 'string' } } }, { type: 'null' }] },
    createdAt: timestamp,
    expiresAt: timestamp,
  },
} as const;

export const pendingInvitation = {
  $id: 'PendingInvitation',
  type: 'object',
  required: ['id', 'email', 'role', 'expiresAt', 'invitedBy'],
  description: 'A pending invitation of the organization, as its owners see it.',
  properties: {
    id: recordId,
    email: { type: 'string' },
    role,
    expiresAt: timestamp,
    invitedBy: {
      type: 'object', required: ['id', 'name', 'email'], description: 'The owner who sent it: an invitation counts only while its inviter is an owner.',
      properties: { id: recordId, name: { type: 'string' }, email: { type: 'string' } },
    },
  },
} as const;

export const project = {
  $id: 'Project',
  type: 'object',
  required: ['id', 'name', 'organizationId'],
  properties: { id: positiveId, name: { type: 'string' }, organizationId: positiveId },
} as const;

export const application = {
  $id: 'Application',
  type: 'object',
  required: ['id', 'name', 'projectId'],
  properties: { id: positiveId, name: { type: 'string' }, projectId: positiveId },
} as const;

export const apiKey = {
  $id: 'ApiKey',
  type: 'object',
  required: ['id', 'applicationId', 'projectId', 'name', 'prefix', 'createdAt'],
  properties: {
    id: recordId,
    applicationId: positiveId,
    projectId: positiveId,
    name: { type: 'string' },
    prefix: { type: 'string', description: 'The visible start of the key, to tell keys apart.' },
    createdAt: timestamp,
    revokedAt: { anyOf: [timestamp, { type: 'null' }] },
  },
} as const;

export const apiKeyCreated = {
  $id: 'ApiKeyCreated',
  type: 'object',
  required: [...apiKey.required, 'key'],
  properties: { ...apiKey.properties, key: { type: 'string', description: 'The key itself: shown only in this response.' } },
} as const;
